// The result envelope every channel answers across the boundary, and the contract's own
// errors: errors travel as data, never as thrown objects.
import { ErrorInfo } from './primitives'

/** The result envelope every channel returns across the boundary: errors travel as data, not as thrown strings. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo }

export class ContractError extends Error {
  constructor(
    readonly kind: 'unknown_channel' | 'invalid_input' | 'forbidden_sender',
    message: string
  ) {
    super(message)
    this.name = 'ContractError'
  }
}

/** Any thrown value as the error half of an envelope. */
export function toEnvelopeError(e: unknown): ErrorInfo {
  if (e instanceof ContractError) return { kind: e.kind, message: e.message, retryable: false }
  if (e && typeof e === 'object' && 'kind' in e && 'message' in e) {
    const src = (e as { toInfo?: () => ErrorInfo }).toInfo?.() ?? (e as ErrorInfo)
    // Copy field by field: an Error's message is not an own enumerable property.
    const picked: Record<string, unknown> = { kind: src.kind, message: src.message, retryable: src.retryable ?? false }
    for (const k of [
      'endpoint',
      'httpStatus',
      'code',
      'origin',
      'nextSlotAt',
      'path',
      'skewMs',
      'bounds',
      'reason',
      'secondFactor',
      'retryAt'
    ] as const)
      if (src[k] !== undefined) picked[k] = src[k]
    const r = ErrorInfo.safeParse(picked)
    if (r.success) return r.data
  }
  return { kind: 'internal', message: e instanceof Error ? e.message : String(e), retryable: false }
}
