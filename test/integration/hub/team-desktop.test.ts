// A desktop's real services with a Team profile against a hub on a sandbox: every
// channel the hub serves answered by the hub (the desktop holds no API secret and no
// order database), its events re-emitted with notifications, the role's limits kept,
// the desktop's own settings kept apart from the team's, offline marks while the hub is
// down, and a hub restart missing no order change.
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exportOrdersCsv } from '../../../src/main/export/orders-csv'
import { csvNamesOf } from '../../../src/shared/domain/csv'
import { parseCsv } from '../../support/csv-reader'
import { statusInfo } from '../../../src/shared/domain/status'
import type { Coverage, EventPayload } from '../../../src/shared/ipc/contract'
import type { ConfirmationPrompt } from '../../../src/main/confirmations'
import { filesContaining } from '../services/harness'
import { startHubFixture, startTeamDesktop, waitUntil, type HubFixture, type TeamDesktop } from './support'

let f: HubFixture
let viewerDesk: TeamDesktop
let operatorDesk: TeamDesktop
let adminToken: string

beforeAll(async () => {
  f = await startHubFixture({ sandbox: { orders: 150 } })
  adminToken = await f.addOperator('ada', 'admin')
  viewerDesk = await startTeamDesktop(f.url, await f.addOperator('vera', 'viewer'), 'Team (vera)')
  operatorDesk = await startTeamDesktop(f.url, await f.addOperator('otto', 'operator'), 'Team (otto)')
  await waitUntil(() => viewerDesk.services.teamSession()?.connection.connected === true, 10_000, 'viewer connected')
  await waitUntil(() => operatorDesk.services.teamSession()?.connection.connected === true, 10_000, 'operator connected')
})
afterAll(async () => {
  await viewerDesk?.close()
  await operatorDesk?.close()
  await f?.close()
})

describe('a Team profile', () => {
  it('is this app with the hub’s data and the hub’s word on the role', async () => {
    const info = await viewerDesk.call('app:info', {})
    expect(info).toMatchObject({ version: '0.0.0-test', shell: 'web', profile: { kind: 'team', baseUrl: f.url } })
    const access = await viewerDesk.call('team:access', {})
    expect(access.team).toMatchObject({ operator: 'vera', role: 'viewer', connected: true, hubUrl: f.url })
    expect(access.channels).toContain('profiles:list')
    expect(access.channels).not.toContain('quotes:get')
    const rows = await viewerDesk.call('orders:query', { filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 10 })
    const onHub = f.hub.session().store.orders.query({ type: 1, limit: 1 }).total
    expect(rows.total).toBe(onHub)
    expect(onHub).toBeGreaterThan(0)
  })

  it('answers the hub’s refusal for what the role lacks, and the operator’s quote', async () => {
    const q = { type: 1 as const, coinId: 54, chainId: 1, fiatType: 1, fiatAmount: '2500' }
    const refused = await viewerDesk.envelope('quotes:get', q)
    expect(refused).toMatchObject({ ok: false, error: { kind: 'forbidden' } })
    expect((await operatorDesk.call('quotes:get', q)).rate).toMatch(/^\d/)
    const setUrl = await operatorDesk.envelope('webhooks:setUrl', { url: 'https://merchant.example/hook' })
    expect(setUrl).toMatchObject({ ok: false, error: { kind: 'forbidden', message: expect.stringMatching(/admin role/) } })
  })

  it('asks the admin on their own desktop before the production webhook URL changes, naming the URL it replaces', async () => {
    const asked: ConfirmationPrompt[] = []
    let answer = false
    const adminDesk = await startTeamDesktop(f.url, adminToken, 'Team (ada)', {
      confirm: async (p) => {
        asked.push(p)
        return answer
      }
    })
    try {
      const before = f.hub.session().store.audit.list({ action: 'webhook.setUrl', limit: 5 }).rows.length
      const cancelled = await adminDesk.envelope('webhooks:setUrl', { url: 'https://merchant.example/first' })
      expect(cancelled).toMatchObject({ ok: false, error: { kind: 'not_confirmed' } })
      expect(asked[0]).toMatchObject({ change: 'webhookUrl', message: expect.stringContaining('https://merchant.example/first') })
      expect(f.hub.session().store.audit.list({ action: 'webhook.setUrl', limit: 5 }).rows.length).toBe(before)

      answer = true
      await adminDesk.call('webhooks:setUrl', { url: 'https://merchant.example/first' })
      const second = await adminDesk.call('webhooks:setUrl', { url: 'https://merchant.example/second' })
      expect(asked[2]!.detail).toContain('It replaces https://merchant.example/first')
      // The answer names the URL replaced, for the card to say after the change.
      expect(second.replaced).toMatchObject({ url: 'https://merchant.example/first' })
      expect(await adminDesk.call('webhooks:lastUrl', {})).toMatchObject({ url: 'https://merchant.example/second' })
    } finally {
      await adminDesk.close()
    }
  })

  it('keeps its own settings and shows the team’s polling, which only an admin changes', async () => {
    await viewerDesk.call('settings:update', { theme: 'dark' })
    const s = await viewerDesk.call('settings:get', {})
    expect(s.theme).toBe('dark')
    expect(s.historyPollSeconds).toBe(
      f.hub.session() && (await f.call<{ historyPollSeconds: number }>(adminToken, 'settings:get')).historyPollSeconds
    )
    const denied = await viewerDesk.envelope('settings:update', { historyPollSeconds: 45, theme: 'light' })
    expect(denied.ok).toBe(false)
    expect((await viewerDesk.call('settings:get', {})).theme).toBe('dark')
    const admin = await startTeamDesktop(f.url, adminToken, 'Team (ada)')
    try {
      const next = await admin.call('settings:update', { historyPollSeconds: 45, theme: 'light' })
      expect(next).toMatchObject({ historyPollSeconds: 45, theme: 'light' })
      expect((await viewerDesk.call('settings:get', {})).historyPollSeconds).toBe(45)
      expect((await viewerDesk.call('settings:get', {})).theme).toBe('dark')
    } finally {
      await admin.close()
    }
  })

  it('re-emits the hub’s order events with notifications, watches marked for this operator', async () => {
    const o = f.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await operatorDesk.call('sync:now', {})
    await operatorDesk.waitFor('order:created', (r) => r.orderId === o.orderId)
    await operatorDesk.call('orders:watch', { type: 1, orderId: o.orderId, watch: true })
    let last = o
    while (!statusInfo(1, last.status).terminal) last = f.sandbox.control.advanceOrder(o.orderId)
    await operatorDesk.call('sync:now', {})
    const done = await operatorDesk.waitFor('order:changed', (p) => p.row.orderId === o.orderId && p.newStatus === last.status)
    expect(done.row.watched).toBe(true)
    const seenByViewer = await viewerDesk.waitFor('order:changed', (p) => p.row.orderId === o.orderId && p.newStatus === last.status)
    expect(seenByViewer.row.watched).toBe(false)
    await waitUntil(() => operatorDesk.notifications.some((n) => n.order?.orderId === o.orderId), 5000, 'notification')
  })

  it('shows what it last knew, marked offline, while the hub is down, and misses no order change across a restart', async () => {
    await viewerDesk.call('tickers:visibility', { view: 'main', visible: true })
    const tick = await viewerDesk.call('tickers:get', { fiatType: 1 })
    expect(tick.rows.length).toBeGreaterThan(0)
    await viewerDesk.call('config:get', {})
    await viewerDesk.call('sync:state', {})
    const online = await viewerDesk.call('tray:state', {})
    expect(online.level).not.toBe('offline')
    const coverageOnline = await viewerDesk.call('sync:coverage', {})
    expect(coverageOnline.gaps.some((g) => g.kind === 'hub')).toBe(false)
    const open = Array.from({ length: 4 }, () => f.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true }))
    await viewerDesk.call('sync:now', {})
    for (const o of open) await viewerDesk.waitFor('order:created', (r) => r.orderId === o.orderId)
    const mark = viewerDesk.events.length
    // What the hub last reported before it went away: its answer now, or a later change it sent
    // (a completeness check or a count may move it while the hub stops).
    const coverageAtStop = await viewerDesk.call('sync:coverage', {})
    const stopMark = viewerDesk.events.length
    const lastReported = (): Coverage =>
      viewerDesk.events
        .slice(stopMark)
        .filter((e) => e.event === 'coverage:changed')
        .map((e) => e.payload as Coverage)
        .filter((c) => c.gaps[0]?.kind !== 'hub')
        .at(-1) ?? coverageAtStop

    await f.stopHub()
    await waitUntil(() => viewerDesk.services.teamSession()?.connection.connected === false, 5000, 'desktop notices')
    const offlineState = await viewerDesk.waitFor('sync:state', (s) => s.lastError?.kind === 'hub_unreachable')
    expect(offlineState.lastError?.message).toMatch(/hub/)
    await viewerDesk.waitFor('ticker:tick', (t) => t.rows.length > 0 && t.rows.every((r) => r.stale))
    expect((await viewerDesk.call('config:get', {})).stale).toBe(true)
    const offlineTick = await viewerDesk.call('tickers:get', { fiatType: 1 })
    expect(offlineTick.rows.every((r) => r.stale)).toBe(true)
    // The tray tells it first, with the counts the hub last gave.
    const tray = await viewerDesk.call('tray:state', {})
    expect(tray).toMatchObject({ level: 'offline', icon: 'error', attention: online.attention, inProgress: online.inProgress })
    expect(tray.detail).toMatch(/hub/)
    // Nothing silent: completeness cannot be known while the hub is away, and the gaps it
    // last reported stay on show (the tray, the orders header, diagnostics).
    const trayGaps = tray.gaps ?? []
    expect(trayGaps[0]).toMatch(/^Team hub unreachable since \d\d:\d\d UTC: whether every order is here cannot be known/)
    const reported = lastReported()
    expect(trayGaps.slice(1)).toEqual(reported.gaps.map((g) => g.text))
    const coverageOffline = await viewerDesk.call('sync:coverage', {})
    expect(coverageOffline.gaps).toEqual([expect.objectContaining({ kind: 'hub', text: trayGaps[0] }), ...reported.gaps])
    expect(coverageOffline.scopes).toEqual(reported.scopes)
    await viewerDesk.waitFor('coverage:changed', (c) => c.gaps[0]?.kind === 'hub')
    expect(await viewerDesk.envelope('orders:query', { filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 1 })).toMatchObject({
      ok: false,
      error: { kind: 'hub_unreachable', message: expect.stringMatching(/unreachable/) }
    })

    // While the hub is down the orders move on at the service, and the restarted hub has
    // synced them before any desktop can reconnect: the desktop learns of them only by
    // naming the last event it saw (the replay).
    const moved = open.map((o) => f.sandbox.control.advanceOrder(o.orderId))
    await f.startHub({
      beforeListen: (hub) =>
        hub
          .session()
          .monitor.syncNow()
          .then(() => undefined)
    })
    await waitUntil(() => viewerDesk.services.teamSession()?.connection.connected === true, 10_000, 'desktop reconnects')
    const changed = () =>
      viewerDesk.events
        .slice(mark)
        .filter((e) => e.event === 'order:changed')
        .map((e) => e.payload as EventPayload<'order:changed'>)
    for (const m of moved) {
      expect(f.sandbox.control.order(m.orderId)!.history.at(-1)?.status).toBe(m.status)
      await waitUntil(
        () => changed().some((p) => p.row.orderId === m.orderId && p.newStatus === m.status),
        10_000,
        `order ${m.orderId} change`
      )
    }
    // Once each: the overlap the hub replays is dropped by id.
    for (const m of moved) expect(changed().filter((p) => p.row.orderId === m.orderId)).toHaveLength(1)
    for (const o of open)
      expect(
        viewerDesk.events.filter((e) => e.event === 'order:created' && (e.payload as { orderId: number }).orderId === o.orderId)
      ).toHaveLength(1)
    // And changes after the restart arrive live: an order still open moves on (a path may end
    // at its first move; then a new order is made for it).
    let live = moved.find((m) => !statusInfo(1, m.status).terminal)
    if (!live) {
      const made = f.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
      await f.call(adminToken, 'sync:now')
      await viewerDesk.waitFor('order:created', (r) => r.orderId === made.orderId)
      live = made
    }
    const later = f.sandbox.control.advanceOrder(live.orderId)
    await f.call(adminToken, 'sync:now')
    await waitUntil(() => changed().some((p) => p.row.orderId === later.orderId && p.newStatus === later.status), 10_000, 'live change')
    // Reconnected: the marks are lifted.
    await viewerDesk.waitFor('sync:state', (s) => s.lastError === null && s.lastSuccessAt !== null)
    expect((await viewerDesk.call('sync:coverage', {})).gaps.some((g) => g.kind === 'hub')).toBe(false)
    expect((await viewerDesk.call('tray:state', {})).gaps?.some((g) => /Team hub/.test(g))).toBe(false)
    expect((await viewerDesk.call('team:access', {})).team?.connected).toBe(true)
  })

  it('told to resync (its last event id is one the hub cannot replay from), reads every view again, then resumes', async () => {
    // As after the hub's database was restored from an older backup: the desktop has seen ids the hub never gave.
    const connection = viewerDesk.services.teamSession()!.connection
    ;(connection as unknown as { lastId: number }).lastId = 10_000_000
    const mark = viewerDesk.events.length
    await f.stopHub()
    await waitUntil(() => connection.connected === false, 5000, 'desktop notices')
    await f.startHub()
    await waitUntil(() => connection.connected === true, 10_000, 'desktop reconnects')
    const marks = () =>
      viewerDesk.events
        .slice(mark)
        .filter((e) => e.event === 'sync:state')
        .map((e) => (e.payload as { writeMark?: string }).writeMark ?? '')
    await waitUntil(() => marks().some((m) => m.includes('~resync')), 5000, 'sync states with a new write mark')
    // It now counts from the hub's newest id: changes after it arrive.
    const order = f.sandbox.control.createOrder({ type: 1, fiatType: 1, hold: true })
    await f.call(adminToken, 'sync:now')
    await viewerDesk.waitFor('order:created', (r) => r.orderId === order.orderId)
    expect((connection as unknown as { lastId: number }).lastId).toBeLessThan(10_000_000)
  })

  it('writes a CSV export on the desktop, streamed from the hub’s database, the same bytes as the hub’s own', async () => {
    const r = await viewerDesk.call('orders:export', { filter: { type: 1 } })
    expect(r.path.startsWith(join(viewerDesk.dataDir, 'exports'))).toBe(true)
    const mine = await readFile(r.path)
    const theirs = join(f.dataDir, 'export-check')
    const reference = await exportOrdersCsv({
      store: f.hub.session().store,
      input: { filter: { type: 1 } },
      names: csvNamesOf(f.hub.session().config.snapshot()),
      dir: theirs,
      at: Date.now(),
      onProgress: () => undefined
    })
    expect(r.rows).toBe(reference.rows)
    expect(mine.equals(await readFile(reference.path))).toBe(true)
    // Coins, chains and fiats by their names, as finance reads them.
    const [header, first] = parseCsv(mine.toString('utf8').replace(/^\uFEFF/, ''))
    const coin = first![header!.indexOf('coin')]!
    expect(coin).toMatch(/^[A-Z0-9]+$/)
    expect(first![header!.indexOf('chain')]).not.toMatch(/^#/)
    expect(first![header!.indexOf('fiat')]).toBe('INR')
    expect((await stat(r.path)).mode & 0o777).toBe(0o600)
    await viewerDesk.waitFor('export:progress', (p) => p.done && p.rows === r.rows)
    const audit = await f.call<{ rows: Array<{ operator: string; action: string }> }>(adminToken, 'audit:list', { limit: 50 })
    expect(audit.rows.some((a) => a.operator === 'vera' && a.action === 'orders:export')).toBe(true)
  })

  it('exports both types in one file with headers in words through the hub, as the desktop asked', async () => {
    const r = await viewerDesk.call('orders:export', { filter: { type: 2 }, headers: 'words', bothTypes: true })
    expect(r).toMatchObject({ headers: 'words', file: expect.stringMatching(/^rampdesk-orders-/) })
    const [header, ...rows] = parseCsv((await readFile(r.path, 'utf8')).replace(/^\uFEFF/, ''))
    expect(header!.slice(0, 3)).toEqual(['Type', 'Order id', 'Merchant reference'])
    expect(header).toContain('Network fee currency')
    expect(new Set(rows.map((row) => row[0]))).toEqual(new Set(['Onramp', 'Offramp']))
    expect(rows).toHaveLength(r.rows)
  })

  it('tells a desktop whose token was revoked that its access was revoked and whom to ask, with no promise of a retry', async () => {
    const ritaDesk = await startTeamDesktop(f.url, await f.addOperator('rita', 'viewer'), 'Team (rita)')
    try {
      await waitUntil(() => ritaDesk.services.teamSession()?.connection.connected === true, 10_000, 'rita connected')
      await ritaDesk.call('sync:state', {})
      await f.call(adminToken, 'team:revokeOperator', { name: 'rita' })
      await waitUntil(() => ritaDesk.services.teamSession()?.connection.refused === true, 10_000, 'the hub refuses rita')
      expect((await ritaDesk.call('team:access', {})).team).toMatchObject({ connected: false, line: 'revoked' })
      const state = await ritaDesk.waitFor('sync:state', (s) => s.lastError?.kind === 'access_revoked')
      expect(state.lastError?.retryable).toBe(false)
      const tray = await ritaDesk.call('tray:state', {})
      expect(tray.headline).toBe("Your access was revoked: ask your team's admin")
      expect(tray.detail).not.toMatch(/retries by itself|base URL/)
      expect(await ritaDesk.envelope('orders:query', { filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 1 })).toMatchObject({
        ok: false,
        error: { kind: 'access_revoked', retryable: false }
      })
    } finally {
      await ritaDesk.close()
    }
  })

  it('keeps no API secret anywhere on the desktop', async () => {
    for (const d of [viewerDesk, operatorDesk]) {
      expect(await filesContaining(d.dataDir, f.sandbox.apiSecret)).toEqual([])
      for (const a of d.answers) expect(a).not.toContain(f.sandbox.apiSecret)
      for (const e of d.events) expect(JSON.stringify(e.payload)).not.toContain(f.sandbox.apiSecret)
    }
  })
})
