// One attempt at one alert hook message: a POST of the body queued, signed at this attempt
// for a JSON hook. The hook's URL may carry its secret (a Slack URL does): it is never put in
// an answer kept or logged, only the hook's display form (hook-bodies.ts hookDisplay).
import { performance } from 'node:perf_hooks'
import { request } from 'undici'
import { hookDisplay, signedHeaders } from './hook-bodies'
import { hookNextAfter, type AlertHook, type AlertHookStore, type HookAttempt, type HookJob, type HookNext } from './hook-store'

export interface SendOptions {
  hub: string
  now: () => number
  timeoutMs?: number
  signal?: AbortSignal
}

/** Sends a job to its hook once; answers the attempt (never throws). */
export async function sendOnce(hook: AlertHook, job: HookJob, o: SendOptions): Promise<HookAttempt> {
  const started = performance.now()
  const at = o.now()
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Rampdesk-Hub-Alerts' }
  if (hook.format === 'json' && hook.secret) Object.assign(headers, signedHeaders(hook.secret, job.body, at))
  const signals = [AbortSignal.timeout(o.timeoutMs ?? 10_000), ...(o.signal ? [o.signal] : [])]
  const scrub = (text: string) => text.split(hook.url).join(hookDisplay(hook.url))
  try {
    const r = await request(hook.url, { method: 'POST', headers, body: job.body, signal: AbortSignal.any(signals) })
    const text = await r.body.text()
    return { at, hub: o.hub, httpStatus: r.statusCode, answer: scrub(text.slice(0, 200)), ms: performance.now() - started }
  } catch (e) {
    return { at, hub: o.hub, httpStatus: null, answer: scrub(e instanceof Error ? e.message : String(e)), ms: performance.now() - started }
  }
}

/** The receiver's answer in a few words. */
export function attemptText(a: Pick<HookAttempt, 'httpStatus' | 'answer'>): string {
  return a.httpStatus === null ? `no answer (${a.answer})` : `HTTP ${a.httpStatus}`
}

/** Sends a claimed job, records the attempt and what follows; answers both. */
export async function attemptJob(
  store: AlertHookStore,
  hook: AlertHook | undefined,
  job: HookJob,
  o: SendOptions
): Promise<{ attempt: HookAttempt; next: HookNext }> {
  if (!hook) {
    const attempt: HookAttempt = { at: o.now(), hub: o.hub, httpStatus: null, answer: 'the hook was removed', ms: 0 }
    const next: HookNext = { kind: 'failed', why: 'the hook was removed' }
    await store.settle(job, attempt, next)
    return { attempt, next }
  }
  const attempt = await sendOnce(hook, job, o)
  const next = hookNextAfter(job, attempt, o.now())
  await store.settle(job, attempt, next)
  return { attempt, next }
}
