// The diagnostics namespace: what the app knows of the service it talks to, per endpoint,
// of the clock and of sync, for support.
import { z } from 'zod'
import { ShellKind } from './app'
import { ch, EpochMs, none } from './primitives'
import { ProfileKind } from './profiles'
import { Coverage, SyncState } from './sync'

const JsonType = z.enum(['integer', 'string'])

/** What the app knows of one endpoint of the service it talks to. */
export const EndpointDiagnostics = z.object({
  endpoint: z.string(),
  calls: z.number().int(),
  failures: z.number().int(),
  lastCallAt: EpochMs.nullable(),
  lastHttpStatus: z.number().int().nullable(),
  /** 'ok' or the error kind of the last call. */
  lastOutcome: z.string().nullable(),
  latencyMs: z.number().nullable(),
  budgetWaitMs: z.number().nullable(),
  /** The shape of the last answer read (e.g. allCoinLimits shape B, priceTicker keys). */
  shape: z.string().nullable(),
  /** Integer-valued request fields: the JSON type the spec gives and the one the service takes. */
  encodings: z.array(
    z.object({ field: z.string(), spec: JsonType, encoding: JsonType, confirmed: z.boolean(), learnedAt: EpochMs.nullable() })
  ),
  limit: z.object({ perMinute: z.number(), source: z.enum(['documented', 'learned', 'default']) }),
  lastError: z.object({ at: EpochMs, kind: z.string(), httpStatus: z.number().int().nullable(), message: z.string() }).nullable()
})
export type EndpointDiagnostics = z.infer<typeof EndpointDiagnostics>

export const Diagnostics = z.object({
  generatedAt: EpochMs,
  app: z.object({ version: z.string(), platform: z.string(), shell: ShellKind }),
  profile: z.object({ name: z.string(), kind: ProfileKind, baseUrl: z.string(), serviceName: z.string() }),
  clock: z.object({
    /** Estimated service minus local time. */
    skewMs: z.number(),
    source: z.enum(['currentTimestamp', 'date']).nullable(),
    samples: z.number().int(),
    lastSampleAt: EpochMs.nullable(),
    /** Readings held back as implausible jumps (over 1 h, one source only). */
    rejectedJumps: z.number().int(),
    /** Whether currentTimestamp answers (null: not asked yet). */
    serverTimeAvailable: z.boolean().nullable()
  }),
  endpoints: z.array(EndpointDiagnostics),
  sync: z.array(SyncState),
  unreadableOrders: z.number().int(),
  /** Scopes, readings of merchantHistory, freshness (a hub of an older version leaves it out). */
  coverage: Coverage.optional()
})
export type Diagnostics = z.infer<typeof Diagnostics>

export const diagnosticsChannels = {
  'diagnostics:get': ch(none, Diagnostics, 'What the app knows of the service: per endpoint, the clock, sync'),
  'diagnostics:text': ch(
    none,
    z.object({ text: z.string() }),
    'The diagnostics as plain text for support, with no secret, key or wallet address'
  )
} as const
