// The service diagnostics: what the app has learned about the service the active profile
// talks to (per endpoint: the last call, its latency and budget wait, the answer's shape,
// the JSON type each field is taken in, the limit and where it comes from, the last
// error), the clock and its source, and where sync stands. diagnosticsText is the same
// for support, redacted: no secret, key or wallet address.
import { endpointNames } from '../../shared/api/endpoints'
import type { Coverage, Diagnostics, Profile, ShellKind, SyncState } from '../../shared/ipc/contract'
import { auditLine } from '../monitor/coverage'
import { scopeName } from '../../shared/domain/coverage-text'
import type { ClockInfo } from '../api/clock'
import type { FieldEncodingInfo } from '../api/param-encoding'
import type { BudgetSnapshot } from '../api/rate-budget'
import type { EndpointLog } from './endpoint-log'
import { redactText } from '../logging/redact'

export interface DiagnosticsSources {
  now: number
  app: { version: string; platform: string; shell: ShellKind }
  profile: Profile
  log: EndpointLog
  encodings: readonly FieldEncodingInfo[]
  budget: BudgetSnapshot
  clock: ClockInfo
  serverTimeAvailable: boolean | null
  sync: SyncState[]
  unreadableOrders: number
  coverage?: Coverage
}

export function buildDiagnostics(s: DiagnosticsSources): Diagnostics {
  const limits = new Map(s.budget.endpoints.map((e) => [e.endpoint, e]))
  return {
    generatedAt: s.now,
    app: s.app,
    profile: { name: s.profile.name, kind: s.profile.kind, baseUrl: s.profile.baseUrl, serviceName: s.profile.serviceName },
    clock: {
      skewMs: s.clock.skewMs,
      source: s.clock.source,
      samples: s.clock.samples,
      lastSampleAt: s.clock.lastSampleAt,
      rejectedJumps: s.clock.rejectedJumps,
      serverTimeAvailable: s.serverTimeAvailable
    },
    endpoints: endpointNames.map((endpoint) => {
      const b = limits.get(endpoint)
      return {
        endpoint,
        ...s.log.get(endpoint),
        encodings: s.encodings
          .filter((e) => e.endpoint === endpoint)
          .map((e) => ({ field: e.field, spec: e.spec, encoding: e.encoding, confirmed: e.confirmed, learnedAt: e.learnedAt })),
        limit: { perMinute: b?.limit ?? 0, source: b?.limitSource ?? 'default' }
      }
    }),
    sync: s.sync,
    unreadableOrders: s.unreadableOrders,
    ...(s.coverage ? { coverage: s.coverage } : {})
  }
}

const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString())

/** Scopes, readings, freshness, gaps and their cost, as text. */
function coverageLines(c: Coverage, now: number): string[] {
  const out = ['Order coverage:']
  for (const s of c.scopes)
    out.push(
      `  ${scopeName(s.type, s.fiatType)}: probe ${s.probe}${s.probedAt !== null ? ` ${iso(s.probedAt)}` : ''}` +
        `${s.nextProbeAt !== null && s.probe !== 'active' ? `, next ${iso(s.nextProbeAt)}` : ''}; ${auditLine(s, now)}${s.error ? `; ${s.error}` : ''}`
    )
  out.push('merchantHistory readings:')
  for (const r of c.readings) out.push(`  ${r.label}: ${r.value} (${r.state}${r.at !== null ? ` ${iso(r.at)}` : ''}): ${r.how}`)
  const f = c.freshness
  out.push(
    `Status freshness: ${f.open} open orders, ${f.stale} not confirmed within ${f.boundMinutes} min, last sweep ${iso(f.lastSweepAt)}${f.error ? `, ${f.error}` : ''}`
  )
  const sp = c.spentLastHour
  out.push(`Requests in the last hour: probes ${sp.probe}, audits ${sp.audit}, reading checks ${sp.reading}, freshness ${sp.freshness}`)
  out.push(c.gaps.length === 0 ? 'Known gaps: none' : 'Known gaps:', ...c.gaps.map((g) => `  ${g.text}`))
  return out
}

/** Plain text for a support ticket. `known` are values to remove wherever they appear (the API key, the secret). */
export function diagnosticsText(d: Diagnostics, known: readonly string[]): string {
  const lines: string[] = [
    `Rampdesk ${d.app.version} (${d.app.shell}, ${d.app.platform}) diagnostics at ${iso(d.generatedAt)}`,
    `Profile: ${d.profile.name} (${d.profile.kind}) ${d.profile.baseUrl} service ${d.profile.serviceName}`,
    `Clock: service ${d.clock.skewMs >= 0 ? '+' : ''}${d.clock.skewMs} ms from local, source ${d.clock.source ?? 'none yet'}, ` +
      `${d.clock.samples} samples, last ${iso(d.clock.lastSampleAt)}, ${d.clock.rejectedJumps} jumps held back, ` +
      `currentTimestamp ${d.clock.serverTimeAvailable === null ? 'not asked' : d.clock.serverTimeAvailable ? 'answers' : 'absent'}`,
    `Unreadable orders: ${d.unreadableOrders}`,
    '',
    'Endpoints:'
  ]
  for (const e of d.endpoints) {
    const enc = e.encodings
      .filter((x) => x.encoding !== x.spec || x.confirmed)
      .map((x) => `${x.field}=${x.encoding}${x.encoding !== x.spec ? ` (spec ${x.spec})` : ''}`)
    lines.push(
      `  ${e.endpoint}: ${e.calls} calls, ${e.failures} failed, last ${iso(e.lastCallAt)} ${e.lastOutcome ?? ''}` +
        `${e.lastHttpStatus !== null ? ` HTTP ${e.lastHttpStatus}` : ''}` +
        `${e.latencyMs !== null ? ` ${e.latencyMs} ms` : ''}${e.budgetWaitMs ? ` (waited ${e.budgetWaitMs} ms)` : ''}; ` +
        `limit ${e.limit.perMinute}/min ${e.limit.source}` +
        `${e.shape ? `; shape ${e.shape}` : ''}${enc.length ? `; types ${enc.join(', ')}` : ''}` +
        `${e.lastError ? `; last error ${iso(e.lastError.at)} ${e.lastError.kind}: ${e.lastError.message}` : ''}`
    )
  }
  lines.push('', 'Sync:')
  for (const s of d.sync) {
    lines.push(
      `  type ${s.type} fiat ${s.fiatType}: cursor ${s.cursor ?? '-'}, last success ${iso(s.lastSuccessAt)}, ` +
        `last reconcile ${iso(s.lastReconcileAt)}${s.running ? `, running ${s.mode ?? ''}` : ''}` +
        `${s.lastError ? `, error ${s.lastError.kind}: ${s.lastError.message}` : ''}`
    )
  }
  if (d.coverage) lines.push('', ...coverageLines(d.coverage, d.generatedAt))
  // The known values first (wherever an error message quoted them), then anything shaped
  // like an address, hash, signature or key: the same redaction as the support log.
  let text = lines.join('\n')
  for (const k of known) if (k.length >= 4) text = text.split(k).join('[redacted]')
  return redactText(text)
}
