// The main process's services behind the IPC contract, composed with no knowledge of
// Electron: profiles, the keychain, the active profile's session (database, API client,
// config cache, tickers, order monitor, webhook inbox, and for the sandbox profile the
// embedded simulator), notifications policy and the audit log. src/main/electron and
// src/web both serve `handlers` and forward `subscribe` events; tests drive it directly.
import { join } from 'node:path'
import { createWriteStream } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { once } from 'node:events'
import { ApiClient } from './api/client'
import { AppSettings } from './app-settings'
import { ProfileSession, type SandboxOptions } from './profile-session'
import { ProfileStore } from './profiles/profile-store'
import { SecretStore, type SafeStorageLike } from './secrets/secret-store'
import { toContractRow, toStoreFilter, toStoreSort } from './order-rows'
import { toContractDelivery } from './webhooks/inbox'
import type { AuditAction } from './store/audit-log-repo'
import { startSandbox, type Sandbox } from '../sandbox'
import {
  type ChannelOutput,
  type ContractHandlers,
  type EventName,
  type EventPayload,
  type Profile,
  type QuoteInput,
  type QuoteResult
} from '../shared/ipc/contract'
import { ApiError, explainError, toErrorInfo } from '../shared/api/errors'
import { decodePayload, verifySignature } from '../shared/api/signature'
import { statusInfo, statusText } from '../shared/domain/status'
import { csvHeader, csvRecord, offrampCsvColumns, onrampCsvColumns, CSV_BOM } from '../shared/domain/csv'
import type { OfframpOrder, OnrampOrder } from '../shared/api/schemas'

export interface OrderRef {
  type: 1 | 2
  orderId: number
}

/** What the services need from the shell they run in (Electron or the browser harness). */
export interface ShellPort {
  openExternal(url: string): Promise<void>
  showMain(order?: OrderRef): void
  notify(n: { title: string; body: string; order?: OrderRef }): void
  setStartAtLogin(enabled: boolean): Promise<void>
}

export interface ServicesOptions {
  dataDir: string
  exportDir: string
  version: string
  shellKind: 'electron' | 'web'
  safeStorage?: SafeStorageLike
  shell?: Partial<ShellPort>
  sandbox?: SandboxOptions
  now?: () => number
}

export type EventListener = (event: EventName, payload: unknown) => void

export interface Services {
  handlers: ContractHandlers
  subscribe(listener: EventListener): () => void
  start(): Promise<void>
  close(): Promise<void>
  /** The embedded simulator (started with the sandbox profile), for tests and the demo. */
  sandbox(): Sandbox | null
  /** The active profile's session (tests and benchmarks). */
  session(): ProfileSession
  /** URLs the web shell was asked to open (it has no system browser to hand them to). */
  openedUrls: string[]
}

const SANDBOX_PROFILE_ID = 'sandbox'

export async function createServices(o: ServicesOptions): Promise<Services> {
  const now = o.now ?? Date.now
  const listeners = new Set<EventListener>()
  const openedUrls: string[] = []
  const settings = new AppSettings(o.dataDir)
  const secrets = new SecretStore({
    userDataDir: o.dataDir,
    safeStorage: o.safeStorage ?? null,
    allowPlaintext: () => settings.get().allowPlaintextSecrets
  })
  const profiles = await ProfileStore.open({ dataDir: o.dataDir, secrets })
  const shell: ShellPort = {
    openExternal: async (url) => void openedUrls.push(url),
    showMain: () => undefined,
    notify: () => undefined,
    setStartAtLogin: async () => undefined,
    ...o.shell
  }

  let sandbox: Sandbox | null = null
  let current: ProfileSession | null = null
  let generation = 0
  // Profile switches and shutdown run one at a time; calls wait for the switch to finish.
  let switching: Promise<unknown> = Promise.resolve()
  // Windows that show tickers, kept across sessions: a window does not say so again
  // when the profile changes under it, and its prices must keep moving.
  const tickerViews = new Set<'main' | 'tray'>()

  function emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const l of listeners) {
      try {
        l(event, payload)
      } catch {
        // A failing listener (a closed window) must not stop the others.
      }
    }
  }

  async function ensureSandbox(): Promise<Sandbox> {
    sandbox ??= await startSandbox({ ...o.sandbox, host: '127.0.0.1', port: 0 })
    return sandbox
  }

  async function secretFor(profile: Profile): Promise<string> {
    if (profile.kind === 'sandbox') return (await ensureSandbox()).apiSecret
    const s = await secrets.get(profile.id)
    if (!s)
      throw new ApiError({ kind: 'missing_secret', message: `no API secret is stored for profile "${profile.name}"`, retryable: false })
    return s
  }

  async function openSession(profile: Profile): Promise<ProfileSession> {
    const gen = ++generation
    const sb = profile.kind === 'sandbox' ? await ensureSandbox() : null
    const session = await ProfileSession.open({
      profile: sb ? { ...profile, baseUrl: sb.url, apiKey: sb.apiKey, serviceName: sb.serviceName } : profile,
      dir: profiles.databaseDir(profile.id),
      settings: settings.get(),
      getSecret: () => secretFor(profile),
      now,
      // Events of a session that has been replaced are dropped: nothing of the old profile is shown.
      emit: (event, payload) => {
        if (gen !== generation) return
        emit(event, payload as never)
        if (event === 'order:changed') maybeNotify(payload as EventPayload<'order:changed'>)
      }
    })
    return session
  }

  function maybeNotify(p: EventPayload<'order:changed'>): void {
    const n = settings.get().notify
    if (n.watchedOnly && !p.row.watched) return
    const info = statusInfo(p.row.type, p.newStatus)
    const wanted =
      n.anyChange ||
      (info.terminal && info.tone === 'success' && n.terminalSuccess) ||
      (info.terminal && info.tone === 'failure' && n.terminalFailure) ||
      (info.tone === 'attention' && n.needsAttention)
    if (!wanted) return
    const kind = p.row.type === 1 ? 'Onramp' : 'Offramp'
    shell.notify({
      title: `${kind} order ${p.row.orderId}: ${statusText(p.row.type, p.newStatus)}`,
      body: p.oldStatus === null ? 'New order' : `was ${statusText(p.row.type, p.oldStatus)}`,
      order: { type: p.row.type, orderId: p.row.orderId }
    })
  }

  function active(): ProfileSession {
    if (!current) throw new Error('Rampdesk is not started')
    return current
  }

  /** Waits for any profile switch in progress, then returns the active session. */
  async function ready(): Promise<ProfileSession> {
    await switching
    return active()
  }

  function activeProfile(): Profile {
    return profiles.active()
  }

  function audit(action: AuditAction, detail: Record<string, unknown> = {}): void {
    current?.store.audit.append(action, detail)
  }

  async function switchTo(id: string): Promise<Profile> {
    const run = switching.then(async () => {
      const profile = profiles.get(id)
      if (!profile) throw new Error(`no profile ${id}`)
      const old = current
      current = null
      generation++
      await old?.close()
      await profiles.setActive(id)
      try {
        current = await openSession(profile)
      } catch (e) {
        // Never leave the app without a session: fall back to the sandbox, then report.
        if (id === SANDBOX_PROFILE_ID) throw e
        await profiles.setActive(SANDBOX_PROFILE_ID)
        current = await openSession(profiles.get(SANDBOX_PROFILE_ID)!)
        await current.start()
        emit('profile:changed', profiles.get(SANDBOX_PROFILE_ID)!)
        throw e
      }
      current.store.audit.append('profile.activate', { to: profile.id, name: profile.name })
      await current.start()
      for (const view of tickerViews) current.tickers.setVisible(view, true)
      emit('profile:changed', profile)
      return profile
    })
    switching = run.catch(() => undefined)
    return run
  }

  async function quote(s: ProfileSession, q: QuoteInput, chainId = q.chainId): Promise<QuoteResult> {
    const opts = { priority: 'interactive' as const }
    if (q.type === 1) {
      const r = await s.client.onrampQuote({ coinId: q.coinId, chainId, fiatType: q.fiatType, fiatAmount: q.fiatAmount }, opts)
      return {
        type: 1,
        coinId: q.coinId,
        chainId,
        fiatType: q.fiatType,
        amount: q.fiatAmount,
        rate: r.rate,
        quantity: r.quantity,
        onrampFee: r.onrampFee,
        clientFee: r.clientFee,
        gatewayFee: r.gatewayFee,
        gasFee: r.gasFee,
        quotedAt: now()
      }
    }
    const r = await s.client.offrampQuote({ coinId: q.coinId, chainId, fiatType: 1, quantity: q.quantity }, opts)
    return {
      type: 2,
      coinId: q.coinId,
      chainId,
      fiatType: 1,
      amount: q.quantity,
      rate: r.rate,
      fiatAmount: r.fiatAmount,
      onrampFee: r.onrampFee,
      clientFee: r.clientFee,
      gatewayFee: r.gatewayFee,
      tdsFee: r.tdsFee,
      quotedAt: now()
    }
  }

  async function testConnection(profileId: string): Promise<ChannelOutput<'secrets:test'>> {
    const profile = profiles.get(profileId)
    if (!profile) throw new Error(`no profile ${profileId}`)
    const s = profile.id === activeProfile().id ? await ready() : null
    const started = now()
    let client: ApiClient | null = null
    try {
      // One cheap authenticated call with no documented rate limit: a one-row history page.
      if (s) await s.client.merchantHistory({ type: 1, page: 1, pageSize: 1 }, { priority: 'interactive' })
      else {
        client = new ApiClient({
          profileId: profile.id,
          baseUrl: profile.baseUrl,
          serviceName: profile.serviceName,
          apiKey: profile.apiKey,
          getSecret: () => secretFor(profile)
        })
        await client.merchantHistory({ type: 1, page: 1, pageSize: 1 }, { priority: 'interactive' })
      }
      return {
        ok: true,
        latencyMs: now() - started,
        message: `Connected to ${profile.kind === 'sandbox' ? 'the sandbox' : profile.baseUrl}: the key and secret were accepted.`,
        error: null
      }
    } catch (e) {
      const info = toErrorInfo(e)
      return { ok: false, latencyMs: null, message: explainError(info), error: info }
    } finally {
      await client?.close()
    }
  }

  async function exportOrders(s: ProfileSession, filter: Parameters<ContractHandlers['orders:export']>[0]['filter']) {
    await mkdir(o.exportDir, { recursive: true })
    const kind = filter.type === 1 ? 'onramp' : 'offramp'
    const stamp = new Date(now()).toISOString().replace(/[:.]/g, '-')
    const path = join(o.exportDir, `rampdesk-${kind}-${stamp}.csv`)
    const storeFilter = toStoreFilter(filter)
    const total = s.store.orders.query({ ...storeFilter, limit: 1 }).total
    const out = createWriteStream(path, { mode: 0o600 })
    const columns = (filter.type === 1 ? onrampCsvColumns() : offrampCsvColumns()) as Parameters<
      typeof csvRecord<OnrampOrder | OfframpOrder>
    >[1]
    out.write(CSV_BOM + csvHeader(columns))
    let rows = 0
    for (const r of s.store.orders.exportRows({ ...storeFilter, sort: { key: 'updatedAt', dir: 'asc' } })) {
      if (!out.write(csvRecord(r.record, columns))) await once(out, 'drain')
      rows++
      if (rows % 5000 === 0) emit('export:progress', { rows, total, done: false })
    }
    out.end()
    await once(out, 'finish')
    emit('export:progress', { rows, total, done: true })
    s.store.audit.append('orders.export', { type: filter.type, rows, path })
    return { path, rows }
  }

  const handlers: ContractHandlers = {
    'app:info': async () => {
      const s = await ready()
      return {
        version: o.version,
        platform: process.platform,
        shell: o.shellKind,
        profile: activeProfile(),
        clockSkewMs: s.client.clock.skewMs ?? null
      }
    },
    'app:openExternal': async ({ url }) => {
      await shell.openExternal(url)
      return { ok: true }
    },
    'app:showMain': async ({ order }) => {
      shell.showMain(order)
      return { ok: true }
    },

    'profiles:list': async () => ({ profiles: profiles.list(), activeId: activeProfile().id }),
    'profiles:create': async (input) => {
      const p = await profiles.create({ ...input, kind: 'live' })
      audit('profile.create', { id: p.id, name: p.name, baseUrl: p.baseUrl })
      return p
    },
    'profiles:update': async ({ id, patch }) => {
      const p = await profiles.update(id, patch)
      audit('profile.update', { id, fields: Object.keys(patch) })
      // The active profile's endpoint or key changed: reconnect cleanly.
      if (id === activeProfile().id) await switchTo(id)
      return p
    },
    'profiles:delete': async ({ id }) => {
      if (id === SANDBOX_PROFILE_ID) throw new Error('the sandbox profile cannot be deleted')
      if (id === activeProfile().id) await switchTo(SANDBOX_PROFILE_ID)
      // The store removes the secret first, then the profile and its database directory.
      await profiles.delete(id)
      audit('profile.delete', { id })
      return { ok: true }
    },
    'profiles:switch': async ({ id }) => switchTo(id),

    'secrets:status': async ({ profileId }) => {
      const p = profiles.get(profileId)
      if (!p) throw new Error(`no profile ${profileId}`)
      if (p.kind === 'sandbox') return { has: true, backend: 'none', plaintextWarning: false }
      const backend = await secrets.backendOf(profileId)
      return { has: backend !== 'none', backend, plaintextWarning: backend === 'plaintext' }
    },
    'secrets:set': async ({ profileId, secret }) => {
      const p = profiles.get(profileId)
      if (!p) throw new Error(`no profile ${profileId}`)
      if (p.kind === 'sandbox') throw new Error('the sandbox profile uses the simulator’s own credentials')
      const backend = await secrets.set(profileId, secret)
      audit('secret.set', { profileId, backend })
      return { backend }
    },
    'secrets:delete': async ({ profileId }) => {
      await secrets.delete(profileId)
      audit('secret.delete', { profileId })
      return { ok: true }
    },
    'secrets:test': async ({ profileId }) => testConnection(profileId),

    'settings:get': async () => settings.get(),
    'settings:update': async (patch) => {
      const before = settings.get()
      const next = settings.update(patch)
      if (patch.startAtLogin !== undefined && patch.startAtLogin !== before.startAtLogin) await shell.setStartAtLogin(next.startAtLogin)
      await (await ready()).applySettings(next, before)
      audit('settings.change', { fields: Object.keys(patch) })
      return next
    },

    'config:get': async () => (await ready()).config.get(),
    'config:refresh': async () => (await ready()).config.refreshAll(),
    'bank:get': async () => {
      const r = await (await ready()).config.bank()
      return { ...r, details: r.details as Record<string, unknown> | null }
    },

    'tickers:get': async ({ fiatType }) => {
      const s = await ready()
      if (fiatType !== s.tickers.fiatType) {
        settings.update({ tickerFiat: fiatType })
        s.tickers.configure({ fiatType })
        await s.tickers.refresh()
      } else if (s.tickers.current().rows.length === 0) await s.tickers.refresh()
      return s.tickers.current()
    },
    'tickers:visibility': async ({ view, visible }) => {
      if (visible) tickerViews.add(view)
      else tickerViews.delete(view)
      ;(await ready()).tickers.setVisible(view, visible)
      return { ok: true }
    },

    'quotes:get': async (q) => quote(await ready(), q),
    'quotes:compare': async (q) => {
      const s = await ready()
      const cfg = await s.config.get()
      const coin = cfg.coins.find((c) => c.id === q.coinId)
      if (!coin) throw new Error(`unknown coin #${q.coinId}`)
      const rows = await Promise.all(
        coin.networks.map(async (chainId) => {
          const fee = cfg.gasFees[String(q.coinId)]?.[String(chainId)]
          const base = {
            chainId,
            gasFee: fee?.withdrawalFee ?? null,
            minimum: fee?.minimumWithdrawal ?? null,
            nodeInSync: fee?.nodeInSync ?? null,
            depositEnable: fee?.depositEnable ?? null
          }
          try {
            return { ...base, ok: true, quote: await quote(s, q, chainId), error: null }
          } catch (e) {
            return { ...base, ok: false, quote: null, error: toErrorInfo(e) }
          }
        })
      )
      return { rows }
    },

    'orders:query': async ({ filter, sort, offset, limit }) => {
      const s = await ready()
      const r = s.store.orders.query({ ...toStoreFilter(filter), sort: toStoreSort(sort), offset, limit })
      return { total: r.total, rows: r.rows.map((row) => toContractRow(row, s.store.watches.has(row.type, row.orderId))) }
    },
    'orders:get': async ({ type, orderId }) => {
      const s = await ready()
      const row = s.store.orders.get(type, orderId)
      if (!row) return null
      return {
        row: toContractRow(row, s.store.watches.has(type, orderId)),
        record: row.record as Record<string, unknown>,
        timeline: s.store.orders
          .timeline(type, orderId)
          .map((e) => ({ at: Date.parse(e.at), oldStatus: e.oldStatus, newStatus: e.newStatus, source: e.source }))
      }
    },
    'orders:watch': async ({ type, orderId, watch }) => {
      const s = await ready()
      if (watch) s.monitor.watch(type, orderId)
      else s.monitor.unwatch(type, orderId)
      audit(watch ? 'order.watch' : 'order.unwatch', { type, orderId })
      return { ok: true }
    },
    'orders:watched': async () => {
      const s = await ready()
      const watched = s.store.watches.list()
      const rows = watched.flatMap((w) => {
        const r = s.store.orders.get(w.type, w.orderId)
        return r ? [toContractRow(r, true)] : []
      })
      const seen = new Set(rows.map((r) => `${r.type}:${r.orderId}`))
      // Active (non-terminal) orders most recently changed, for the tray.
      for (const type of [1, 2] as const) {
        const recent = s.store.orders.query({
          ...toStoreFilter({ type, statusGroup: 'in progress' }),
          sort: { key: 'updatedAt', dir: 'desc' },
          limit: 20
        })
        for (const r of recent.rows) if (!seen.has(`${r.type}:${r.orderId}`)) rows.push(toContractRow(r, false))
      }
      return { rows }
    },
    'orders:export': async ({ filter }) => exportOrders(await ready(), filter),

    'sync:state': async () => ({ states: (await ready()).monitor.states() }),
    'sync:now': async () => {
      void (await ready()).monitor.syncNow()
      return { ok: true }
    },
    'budget:get': async () => ({ entries: (await ready()).budgetEntries() }),

    'webhooks:setUrl': async ({ url }) => {
      const s = await ready()
      const message = await s.client.setWebhookUrl({ webhookUrl: url }, { priority: 'interactive' })
      s.store.audit.append('webhook.setUrl', { url })
      return { message }
    },
    'webhooks:sendDummy': async ({ target, url }) => {
      const s = await ready()
      let to: string | undefined = url
      if (target === 'inbox') {
        const inbox = s.inboxStatus()
        if (!inbox.listening || !inbox.url)
          throw new ApiError({
            kind: 'invalid_request',
            message: 'the local inbox is off: turn it on in Settings (Webhook inbox) first',
            retryable: false
          })
        to = inbox.url
      }
      const message = await s.client.sendDummyWebhook(to ? { webhookUrl: to } : {}, { priority: 'interactive' })
      s.store.audit.append('webhook.sendDummy', { target, url: to ?? null })
      return { message, sentTo: to ?? null }
    },
    'webhooks:resend': async ({ orderId }) => {
      const s = await ready()
      const message = await s.client.resendWebhook({ orderId }, { priority: 'interactive' })
      s.store.audit.append('webhook.resend', { orderId })
      return { message }
    },
    'webhooks:deliveries': async ({ offset, limit }) => {
      const s = await ready()
      const r = s.store.webhookDeliveries.list({ offset, limit })
      return { total: r.total, rows: r.rows.map(toContractDelivery) }
    },
    'webhooks:verify': async ({ payload, signature }) => {
      const profile = activeProfile()
      const secret = await secretFor(profile)
      let decoded: unknown = null
      let shape = ''
      try {
        decoded = decodePayload(payload)
      } catch (e) {
        shape = ` (the payload does not decode: ${(e as Error).message})`
      }
      const match = verifySignature(payload, signature, secret)
      return {
        match,
        decoded,
        reason: match
          ? `The signature matches this payload under the secret of “${profile.name}”.${shape}`
          : `The signature does not match this payload under the secret of “${profile.name}”: either the payload was changed, or it was signed with another secret.${shape}`
      }
    },
    'webhooks:inbox': async () => (await ready()).inboxStatus(),

    'audit:list': async ({ limit }) => {
      const r = (await ready()).store.audit.list({ limit })
      return { rows: r.rows.map((e) => ({ id: e.id, at: Date.parse(e.at), action: e.action, detail: e.detail })) }
    }
  }

  return {
    handlers,
    openedUrls,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async start() {
      await switchTo(activeProfile().id)
    },
    async close() {
      const run = switching.then(async () => {
        generation++
        const s = current
        current = null
        await s?.close()
        await sandbox?.close()
        sandbox = null
      })
      switching = run.catch(() => undefined)
      await run
      listeners.clear()
    },
    sandbox: () => sandbox,
    session: active
  }
}
