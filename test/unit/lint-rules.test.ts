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
})
