// The pieces every namespace of the contract builds on: decimal, id and time fields, an
// order's type and reference, the error every channel may answer, and the channel helper.
import { z } from 'zod'
import { httpUrl } from '../../http-url'
import { SECOND_FACTOR_REFUSALS } from '../../second-factor-words'

/** A decimal string as main sends amounts: digits, an optional point and fraction, an optional minus. */
export const Dec = z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string')
export const IdNum = z.number().int().min(-1).max(2_147_483_647)
export const IsoTime = z.string().datetime({ offset: true })
/** An instant in ms since the epoch. */
export const EpochMs = z.number().int().nonnegative()
export const HttpUrl = httpUrl()

/** 1 onramp (fiat to crypto), 2 offramp (crypto to fiat): the same status number means different things for each. */
export const OrderType = z.union([z.literal(1), z.literal(2)])
export type OrderType = z.infer<typeof OrderType>

/** One order: its type and id (ids are one sequence, but an id is only looked up under its type). */
export const OrderRef = z.object({ type: OrderType, orderId: z.number().int() })
export type OrderRef = z.infer<typeof OrderRef>

/** Which of its refusals a team hub's second factor gave (second-factor-words.ts). */
export const SecondFactorRefusal = z.enum(SECOND_FACTOR_REFUSALS)
export type SecondFactorRefusal = z.infer<typeof SecondFactorRefusal>

export const ErrorInfo = z.object({
  kind: z.string(),
  message: z.string(),
  endpoint: z.string().optional(),
  httpStatus: z.number().optional(),
  code: z.number().optional(),
  origin: z.enum(['budget', 'service']).optional(),
  nextSlotAt: z.number().optional(),
  path: z.string().optional(),
  skewMs: z.number().optional(),
  /** A quote refused out of bounds: the minimum and/or maximum the service's text named. */
  bounds: z.object({ minimum: z.string().optional(), maximum: z.string().optional(), unit: z.string().optional() }).optional(),
  /**
   * A team hub refused a token that once worked: it ended, or a rotation replaced it, or the
   * hub ended a sign-in through its identity provider (access_revoked).
   */
  reason: z.enum(['expired', 'replaced', 'signed-out']).optional(),
  /** A team hub's second-factor refusal: which one (SecondFactorRefusal). */
  secondFactor: SecondFactorRefusal.optional(),
  /** When to try again (ISO 8601 instant), where a refusal says: a second-factor lockout's end, say. */
  retryAt: z.iso.datetime({ offset: true }).optional(),
  retryable: z.boolean()
})
export type ErrorInfo = z.infer<typeof ErrorInfo>

/** The answer of a channel that only acts. */
export const ok = z.object({ ok: z.literal(true) })
/** The input of a channel that takes none. */
export const none = z.object({}).strict()

/** One channel: its input and output schemas and what it does, in words. */
export const ch = <I extends z.ZodType, O extends z.ZodType>(input: I, output: O, doc: string) => ({ input, output, doc })
