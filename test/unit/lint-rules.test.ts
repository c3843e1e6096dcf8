// The architecture rules of docs/architecture.md, enforced by ESLint: proven here by linting small
// snippets as if they lived at the paths the rules are about.
import { describe, expect, it } from 'vitest'
import { ESLint } from 'eslint'

const eslint = new ESLint({ cwd: process.cwd() })

async function problems(code: string, filePath: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath })
  return (r?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-globals')
    .map((m) => m.message)
}

describe('lint: architecture rules', () => {
  it("only src/main/electron and src/preload may import 'electron'", async () => {
    const code = "import { app } from 'electron'\nexport const a = app\n"
    expect(await problems(code, 'src/main/services-probe.ts')).toEqual([expect.stringMatching(/Only src\/main\/electron and src\/preload/)])
    expect(await problems(code, 'src/renderer/src/probe.ts')).toEqual([expect.stringMatching(/Only src\/main\/electron/)])
    expect(await problems(code, 'src/shared/probe.ts')).toEqual([expect.stringMatching(/Only src\/main\/electron/)])
    expect(await problems(code, 'src/main/electron/probe.ts')).toEqual([])
    expect(await problems(code, 'src/preload/probe.ts')).toEqual([])
  })

  it('raw ipcMain / ipcRenderer only in the two IPC wrapper files', async () => {
    const main = "import { ipcMain } from 'electron'\nexport const i = ipcMain\n"
    const renderer = "import { ipcRenderer } from 'electron'\nexport const i = ipcRenderer\n"
    expect(await problems(main, 'src/main/electron/windows-probe.ts')).toEqual([expect.stringMatching(/Raw ipcMain\/ipcRenderer/)])
    expect(await problems(renderer, 'src/preload/other-probe.ts')).toEqual([expect.stringMatching(/Raw ipcMain\/ipcRenderer/)])
    expect(await problems(main, 'src/main/electron/ipc.ts')).toEqual([])
    expect(await problems(renderer, 'src/preload/index.ts')).toEqual([])
  })

  it('src/shared imports no Node module and uses no DOM or Node global', async () => {
    expect(
      (await problems("import { readFileSync } from 'node:fs'\nexport const r = readFileSync\n", 'src/shared/probe.ts')).length
    ).toBeGreaterThan(0)
    expect(await problems("import { join } from 'path'\nexport const j = join\n", 'src/shared/probe.ts')).toHaveLength(1)
    expect(await problems('export const w = window.innerWidth\n', 'src/shared/probe.ts')).toEqual([expect.stringMatching(/DOM-only/)])
    expect(await problems('export const d = document.title\n', 'src/shared/probe.ts')).toEqual([expect.stringMatching(/DOM-only/)])
    expect(await problems("export const b = Buffer.from('x')\n", 'src/shared/probe.ts')).toEqual([expect.stringMatching(/Node globals/)])
    expect(await problems("import { join } from 'node:path'\nexport const j = join\n", 'src/main/probe.ts')).toEqual([])
  })

  it("src/sandbox imports nothing of the client's (src/main, src/shared/api)", async () => {
    const independent = /independent reading of the spec/
    for (const from of [
      "import { endpoints } from '../shared/api/endpoints'",
      "import { signPayload } from '../shared/api/signature'",
      "import * as api from '../shared/api'",
      "import { createServices } from '../main/services'",
      "import { main } from '../main'"
    ]) {
      expect(await problems(`${from}\nexport const x = 1\n`, 'src/sandbox/probe.ts'), from).toEqual([expect.stringMatching(independent)])
    }
    expect(await problems("import { round } from '../shared/domain/money'\nexport const r = round\n", 'src/sandbox/probe.ts')).toEqual([])
    expect(await problems("import { createHmac } from 'node:crypto'\nexport const h = createHmac\n", 'src/sandbox/probe.ts')).toEqual([])
  })

  it("src/shared's floors: its own files, then api, then the contract, then domain; none imports one above it", async () => {
    const above = /imports nothing of/
    for (const [from, at] of [
      ["import { a } from './api/schemas'", 'src/shared/probe.ts'],
      ["import { a } from './ipc/contract'", 'src/shared/probe.ts'],
      ["import { a } from './domain/status'", 'src/shared/probe.ts'],
      ["import { a } from '../ipc/contract'", 'src/shared/api/probe.ts'],
      ["import { a } from '../domain/status'", 'src/shared/api/probe.ts'],
      ["import { a } from '../domain/status'", 'src/shared/ipc/probe.ts'],
      ["import { a } from '../../domain/status'", 'src/shared/ipc/contract/probe.ts']
    ] as const) {
      expect(await problems(`${from}\nexport const x = a\n`, at), `${from} in ${at}`).toEqual([expect.stringMatching(above)])
    }
    for (const [from, at] of [
      ["import { a } from './money'", 'src/shared/api/probe.ts'],
      ["import { a } from '../money'", 'src/shared/api/probe.ts'],
      ["import { a } from '../../api/schemas'", 'src/shared/ipc/contract/probe.ts'],
      ["import { a } from '../ipc/contract'", 'src/shared/domain/probe.ts'],
      ["import { a } from '../api/schemas'", 'src/shared/domain/probe.ts']
    ] as const) {
      expect(await problems(`${from}\nexport const x = a\n`, at), `${from} in ${at}`).toEqual([])
    }
  })

  it("a namespace's file of the contract never imports the contract's index", async () => {
    for (const from of ["import { a } from '.'", "import { a } from './index'", "import { a } from '../contract'"]) {
      expect(await problems(`${from}\nexport const x = a\n`, 'src/shared/ipc/contract/probe.ts'), from).toEqual([
        expect.stringMatching(/never the contract's index/)
      ])
    }
    expect(await problems("import { a } from './primitives'\nexport const x = a\n", 'src/shared/ipc/contract/probe.ts')).toEqual([])
    expect(await problems("import { a } from './orders'\nexport const x = a\n", 'src/shared/ipc/contract/index.ts')).toEqual([])
  })

  it('the team hub and the browser harness import nothing of each other', async () => {
    expect(await problems("import { readBody } from '../web/server'\nexport const r = readBody\n", 'src/hub/probe.ts')).toEqual([
      expect.stringMatching(/src\/hub imports nothing of the browser harness/)
    ])
    expect(
      await problems("import { startWebHarness } from '../../web/server'\nexport const s = startWebHarness\n", 'src/hub/pg/probe.ts')
    ).toEqual([expect.stringMatching(/src\/hub imports nothing of the browser harness/)])
    expect(await problems("import { createHub } from '../hub/hub'\nexport const c = createHub\n", 'src/web/probe.ts')).toEqual([
      expect.stringMatching(/src\/web imports nothing of the team hub/)
    ])
    // What both use lives below them, and names that merely contain the words are not the folders.
    expect(await problems("import { readBody } from '../main/request-body'\nexport const r = readBody\n", 'src/hub/probe.ts')).toEqual([])
    expect(await problems("import { readBody } from '../main/request-body'\nexport const r = readBody\n", 'src/web/probe.ts')).toEqual([])
    expect(await problems("import { inbox } from '../main/webhooks/inbox'\nexport const i = inbox\n", 'src/hub/probe.ts')).toEqual([])
    expect(
      await problems("import { HubConnection } from '../main/team/hub-connection'\nexport const h = HubConnection\n", 'src/web/probe.ts')
    ).toEqual([])
  })

  it("inside src/hub, a store's own code is imported only by its backend and the files that pick a store", async () => {
    const own = /src\/hub reaches a store's own code through the backend/
    const pgBackend = "import { openPgBackend } from './pg/pg-backend'\nexport const o = openPgBackend\n"
    const sqliteBackend = "import { openSqliteBackend } from './sqlite-backend'\nexport const o = openSqliteBackend\n"
    expect(await problems(pgBackend, 'src/hub/probe.ts')).toEqual([expect.stringMatching(own)])
    expect(await problems(sqliteBackend, 'src/hub/probe.ts')).toEqual([expect.stringMatching(own)])
    expect(
      await problems("import { PgKeptStore } from '../pg/pg-kept-store'\nexport const k = PgKeptStore\n", 'src/hub/kept/probe.ts')
    ).toEqual([expect.stringMatching(own)])
    expect(
      await problems(
        "import { openSqliteHubStore } from '../sqlite-hub-store'\nexport const o = openSqliteHubStore\n",
        'src/hub/pg/probe.ts'
      )
    ).toEqual([expect.stringMatching(own)])
    expect(
      await problems("import { openPgHubStore } from './pg/pg-hub-store'\nexport const o = openPgHubStore\n", 'src/hub/sqlite-backend.ts')
    ).toEqual([expect.stringMatching(own)])
    // The files that pick a store, a backend's own folder, and the database's address are allowed.
    expect(await problems(pgBackend, 'src/hub/hub-open.ts')).toEqual([])
    expect(await problems(sqliteBackend, 'src/hub/hub-open.ts')).toEqual([])
    expect(
      await problems("import { openPgHubStore } from './pg/pg-hub-store'\nexport const o = openPgHubStore\n", 'src/hub/commands.ts')
    ).toEqual([])
    expect(
      await problems("import { startPgElection } from './pg-election'\nexport const s = startPgElection\n", 'src/hub/pg/probe.ts')
    ).toEqual([])
    expect(
      await problems("import { isPostgresUrl } from './pg/pg-connection'\nexport const i = isPostgresUrl\n", 'src/hub/probe.ts')
    ).toEqual([])
  })

  it('the renderer reaches main only through the contract', async () => {
    expect(
      await problems("import { createServices } from '../../main/services'\nexport const c = createServices\n", 'src/renderer/src/probe.ts')
    ).toEqual([expect.stringMatching(/only through window.rampdesk/)])
  })

  it('src/main/api rests on src/shared alone', async () => {
    const floor = /src\/main\/api rests on src\/shared alone/
    for (const from of [
      "import type { Sql } from '../store/sql'",
      "import { auditDetail } from '../logging/redact'",
      "import { OrderMonitor } from '../monitor/order-monitor'",
      "import { createServices } from '../services'",
      "import type { Sql } from '../../main/store/sql'",
      "export type { Sql } from '../store/sql'"
    ]) {
      expect(await problems(`${from}\nexport const x = 1\n`, 'src/main/api/probe.ts'), from).toEqual([expect.stringMatching(floor)])
    }
    expect(
      await problems("import { endpoints } from '../../shared/api/endpoints'\nexport const e = endpoints\n", 'src/main/api/probe.ts')
    ).toEqual([])
    expect(
      await problems("import type { RateBudget } from './rate-budget'\nexport type R = RateBudget\n", 'src/main/api/probe.ts')
    ).toEqual([])
  })

  it('src/main/store rests on src/shared, src/main/api and src/main/logging; only local-store.ts opens the database', async () => {
    const floor = /src\/main\/store rests on src\/shared, src\/main\/api and src\/main\/logging/
    for (const from of [
      "import type { OrderMonitor } from '../monitor/order-monitor'",
      "import { toContractRow } from '../order-rows'",
      "import type { WebhookInbox } from '../webhooks/inbox'",
      "import type { X } from '../../main/monitor/x'"
    ]) {
      expect(await problems(`${from}\nexport const x = 1\n`, 'src/main/store/probe.ts'), from).toEqual([expect.stringMatching(floor)])
    }
    for (const from of [
      "import type { CarryTable } from '../api/budget-carry'",
      "import { auditDetail } from '../logging/redact'",
      "import type { Sql } from './sql'",
      "import { round } from '../../shared/domain/money'"
    ]) {
      expect(await problems(`${from}\nexport const x = 1\n`, 'src/main/store/probe.ts'), from).toEqual([])
    }
    const opener = /only local-store.ts opens the database/
    expect(
      await problems(
        "import { openProfileDatabase } from './database'\nexport const o = openProfileDatabase\n",
        'src/main/store/migrations.ts'
      )
    ).toEqual([expect.stringMatching(opener)])
    expect(await problems("import type { Sql } from './database'\nexport type S = Sql\n", 'src/main/store/order-counts.ts')).toEqual([
      expect.stringMatching(opener)
    ])
    expect(
      await problems("import type { LocalStore } from './local-store'\nexport type L = LocalStore\n", 'src/main/store/sandbox-run.ts')
    ).toEqual([])
    expect(
      await problems(
        "import { openProfileDatabase } from './database'\nexport const o = openProfileDatabase\n",
        'src/main/store/local-store.ts'
      )
    ).toEqual([])
    expect(await problems("import type { X } from '../monitor/x'\nexport type Y = X\n", 'src/main/store/local-store.ts')).toEqual([
      expect.stringMatching(floor)
    ])
  })

  /** Each import, linted in `file`, is refused with `floor`'s message. */
  async function refused(file: string, floor: RegExp, imports: string[]): Promise<void> {
    for (const from of imports) expect(await problems(`${from}\nexport const x = 1\n`, file), from).toEqual([expect.stringMatching(floor)])
  }

  /** Each import, linted in `file`, passes. */
  async function allowed(file: string, imports: string[]): Promise<void> {
    for (const from of imports) expect(await problems(`${from}\nexport const x = 1\n`, file), from).toEqual([])
  }

  it("the budget's carry declares the table it writes to: src/main/api/budget-carry.ts imports nothing of the store", async () => {
    await refused('src/main/api/budget-carry.ts', /src\/main\/api rests on src\/shared alone/, [
      "import { sqliteCarryTable } from '../store/budget-carry-table'",
      "import type { LocalStore } from '../store/local-store'"
    ])
  })

  it('src/main/webhooks hands verified orders to an interface: it imports nothing of the monitor or above', async () => {
    const file = 'src/main/webhooks/inbox.ts'
    await refused(file, /src\/main\/webhooks rests on src\/shared, src\/main\/api, src\/main\/store, src\/main\/logging and abort.ts/, [
      "import type { OrderMonitor } from '../monitor/order-monitor'",
      "import type { ProfileSession } from '../profile-session'",
      "import { toContractRow } from '../order-rows'",
      "import type { X } from '../../main/monitor/x'"
    ])
    await allowed(file, [
      "import type { VerifiedOrders } from './verified-orders'",
      "import type { WebhookDeliveriesRepo } from '../store/webhook-deliveries-repo'",
      "import { withTimeout } from '../abort'",
      "import { ApiError } from '../../shared/api/errors'"
    ])
  })

  it('src/main/monitor rests on the floors below it, never on what runs it', async () => {
    const file = 'src/main/monitor/probe.ts'
    await refused(file, /src\/main\/monitor rests on src\/shared, src\/main\/api, src\/main\/store/, [
      "import type { ProfileSession } from '../profile-session'",
      "import { registerHandlers } from '../handlers/orders'",
      "import type { X } from '../team/x'",
      "import type { X } from '../../main/diagnostics/x'"
    ])
    await allowed(file, [
      "import type { VerifiedOrders } from '../webhooks/verified-orders'",
      "import type { OrdersRepo } from '../store/orders-repo'",
      "import type { Timers } from '../api/timers'",
      "import { toContractRow } from '../order-rows'",
      "import { HistorySync } from './history-sync'"
    ])
  })
})
