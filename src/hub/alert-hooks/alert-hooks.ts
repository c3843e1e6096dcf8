// The hub's outbound alerts: the leading hub brings the store's alert episodes in line with
// the alerts standing now (a new one raised: a 'raised' message to every hook; one gone: a
// 'cleared' message to the hooks told of it), and sends what is due with the relay's
// back-off. Only the leader does either, so the hubs of one database send one message per
// alert; the store's unique rows make it one even while two hubs believe they lead for a
// moment, and across restarts (an alert still standing when a hub starts is not sent again).
import type { Alert } from '../../shared/ipc/contract'
import type { HubLog } from '../hub-log'
import { hookBody, hookDisplay, type BodyContext, type HookAlert } from './hook-bodies'
import { attemptJob, attemptText } from './hook-sender'
import type { AlertHook, AlertHookStore, HookJob } from './hook-store'

export interface AlertHooksOptions extends BodyContext {
  store: AlertHookStore
  /** This hub's id (its claims are in its name). */
  hub: string
  log: HubLog
  now: () => number
  /** Whether this hub leads (only the leader raises and sends). */
  leads(): boolean
  /** The alerts standing now. */
  alerts(): Alert[]
  /** How often the store is looked at when nothing woke the loop (default 500 ms). */
  pollMs?: number
  /** How often the alerts are brought in line without a change heard (hooks added from the command line; default 5 s). */
  reconcileMs?: number
  timeoutMs?: number
}

export interface AlertHooks {
  /** The alerts changed: bring the episodes in line at once. */
  changed(): void
  /** Resolves once a pass found nothing due and nothing in flight (tests). */
  idle(): Promise<void>
  close(): Promise<void>
}

/** Attempts whose failure is logged: 1, 2, 4, 8, ... */
const worthALine = (attempt: number) => (attempt & (attempt - 1)) === 0

/** Brings the store's episodes in line with the alerts standing; answers how many messages were queued. */
export async function reconcileAlerts(o: Pick<AlertHooksOptions, 'store' | 'now' | 'coinOf'>, alerts: Alert[]): Promise<number> {
  const { store } = o
  const now = o.now()
  const standing = new Map(alerts.map((a) => [a.id, a]))
  const episodes = await store.raisedEpisodes()
  const hooks = await store.hooks()
  const open = new Map(episodes.map((e) => [e.alertId, e.episode]))
  for (const a of standing.values()) {
    if (open.has(a.id)) continue
    const episode = await store.raise(a.id, JSON.stringify(a), now)
    // null: another hub raised it meanwhile; its messages are queued there.
    if (episode !== null) open.set(a.id, episode)
  }
  let queued = 0
  const told = await store.raisedQueued()
  for (const [alertId, episode] of open) {
    const a = standing.get(alertId)
    if (!a) continue
    for (const h of hooks) {
      if (told.has(`${h.id} ${alertId}`)) continue
      const body = hookBody(h.format, 'raised', a as HookAlert, o, now)
      if ((await store.enqueue({ hookId: h.id, alertId, episode, event: 'raised', body, at: now })) !== null) queued++
    }
  }
  const byId = new Map(hooks.map((h) => [h.id, h]))
  for (const e of episodes) {
    if (standing.has(e.alertId) || !(await store.clear(e.alertId, e.episode, now))) continue
    const a = JSON.parse(e.alert) as HookAlert
    for (const hookId of await store.raisedTo(e.alertId, e.episode)) {
      const h = byId.get(hookId)
      if (!h) continue
      const body = hookBody(h.format, 'cleared', a, o, now)
      if ((await store.enqueue({ hookId, alertId: e.alertId, episode: e.episode, event: 'cleared', body, at: now })) !== null) queued++
    }
  }
  return queued
}

/** Queues a test message to a hook and sends it once, now; the hub retries it if it failed. */
export async function sendTest(
  o: Pick<AlertHooksOptions, 'store' | 'now' | 'hub' | 'timeoutMs'>,
  hook: AlertHook
): ReturnType<typeof attemptJob> {
  const now = o.now()
  const alertId = `test:${now}:${Math.random().toString(36).slice(2, 10)}`
  const id = await o.store.enqueue({
    hookId: hook.id,
    alertId,
    episode: 0,
    event: 'test',
    body: hookBody(hook.format, 'test', null, { coinOf: () => null }, now),
    at: now
  })
  const [job] = await o.store.claim(o.hub, 1, now, id ?? -1)
  if (!job) throw new Error(`the running hub took the test message to hook ${hook.id} to send it: see alerts log --hook ${hook.id}`)
  return attemptJob(o.store, hook, job, o)
}

export function startAlertHooks(o: AlertHooksOptions): AlertHooks {
  const pollMs = o.pollMs ?? 500
  const reconcileMs = o.reconcileMs ?? 5_000
  const controller = new AbortController()
  let closed = false
  let dirty = true
  let reconciledAt = -Infinity
  let wake: () => void = () => undefined
  let failing: string | null = null
  let idleWaiters: Array<() => void> = []

  /** Waits `ms`, or until woken (an alert changed, or the hooks close). */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      timer.unref()
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })

  async function sendAll(jobs: HookJob[]): Promise<void> {
    const hooks = new Map((await o.store.hooks()).map((h) => [h.id, h]))
    // One hook's messages in the order queued; the hooks side by side, so one slow receiver holds up no other.
    const byHook = new Map<number, HookJob[]>()
    for (const j of jobs) byHook.set(j.hookId, [...(byHook.get(j.hookId) ?? []), j])
    await Promise.all(
      [...byHook.entries()].map(async ([hookId, list]) => {
        const hook = hooks.get(hookId)
        for (const job of list) {
          const { attempt, next } = await attemptJob(o.store, hook, job, {
            hub: o.hub,
            now: o.now,
            timeoutMs: o.timeoutMs,
            signal: controller.signal
          })
          if (!hook) continue
          const n = job.attempts + 1
          const what = `alert hook ${hook.id} (${hookDisplay(hook.url)}), ${job.event} ${job.alertId}: ${attemptText(attempt)}`
          const fields = { hook: hook.id, alert: job.alertId, event: job.event, httpStatus: attempt.httpStatus, attempts: n }
          if (next.kind === 'delivered') o.log.info(`${what} after ${n} attempt${n > 1 ? 's' : ''}`, fields)
          else if (next.kind === 'failed') o.log.error(`${what}: not sent after ${n} attempt${n > 1 ? 's' : ''} (${next.why})`, fields)
          else if (worthALine(n))
            o.log.warn(`${what} (attempt ${n}); trying again in ${Math.round((next.nextAt - o.now()) / 1000)} s`, fields)
        }
      })
    )
  }

  async function pass(): Promise<number> {
    if (!o.leads()) return 0
    if (dirty || o.now() - reconciledAt >= reconcileMs) {
      dirty = false
      reconciledAt = o.now()
      await reconcileAlerts(o, o.alerts())
    }
    const jobs = await o.store.claim(o.hub, 16, o.now())
    await sendAll(jobs)
    return jobs.length
  }

  const running = (async () => {
    while (!closed) {
      let sent = 0
      try {
        sent = await pass()
        if (failing !== null) o.log.info('the alert hooks reach the store again')
        failing = null
      } catch (e) {
        const why = (e as Error).message
        if (failing === null) o.log.error(`the alert hooks cannot use the store: ${why}; alerts wait until it answers`)
        failing = why
        dirty = true
      }
      if (sent === 0) {
        if (!dirty) for (const w of idleWaiters.splice(0)) w()
        if (!closed) await sleep(pollMs)
      }
    }
  })()

  return {
    changed() {
      dirty = true
      wake()
    },
    idle: () => new Promise<void>((resolve) => idleWaiters.push(resolve)),
    async close() {
      closed = true
      controller.abort()
      wake()
      await running
      idleWaiters = []
    }
  }
}
