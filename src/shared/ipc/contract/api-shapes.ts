// Shapes the merchant API's schemas already define (src/shared/api/schemas.ts), as they cross
// the contract once main has read them: the same fields, each money field a decimal string
// and each integer field a number. The API's schemas keep keys they do not know and accept
// numbers or numeric strings; the contract's copies take only what main sends.
import { z } from 'zod'
import { Int, LimitEntry, Money, OfframpQuoteFields, OnrampQuoteFields, WithdrawalFeeEntry } from '../../api/schemas'
import { Dec } from './primitives'

/** An API field as main sends it on: Money as a decimal string, Int (and Id) as an integer. */
type Read<F> =
  F extends z.ZodOptional<infer I>
    ? z.ZodOptional<Read<I>>
    : F extends z.ZodNullable<infer I>
      ? z.ZodNullable<Read<I>>
      : z.output<F> extends string
        ? typeof Dec
        : z.ZodNumber

function readField(f: z.ZodType): z.ZodType {
  if (f instanceof z.ZodOptional) return readField(f.unwrap() as z.ZodType).optional()
  if (f instanceof z.ZodNullable) return readField(f.unwrap() as z.ZodType).nullable()
  if (f === Money) return Dec
  if (f === Int) return z.number().int()
  // A field of another kind needs its own decision here: the module fails to load rather than guess.
  throw new Error(`the contract has no read form of an API field of type ${f.def.type}`)
}

/** The contract's copy of an API object schema: its fields as main sends them on, unknown keys dropped. */
function asRead<S extends z.core.$ZodShape>(api: z.ZodObject<S, z.core.$loose>): z.ZodObject<{ -readonly [K in keyof S]: Read<S[K]> }> {
  const shape = Object.fromEntries(Object.entries(api.shape).map(([k, f]) => [k, readField(f as z.ZodType)]))
  return z.object(shape) as unknown as z.ZodObject<{ -readonly [K in keyof S]: Read<S[K]> }>
}

/** A coin's fee and minimum on one chain (the gas fee tables). */
export const WithdrawalFeeRead = asRead(WithdrawalFeeEntry)

/** A fiat's {min, max} (the limits tables). */
export const LimitRead = asRead(LimitEntry)

/** What an onramp quote answers. */
export const OnrampQuoteRead = asRead(OnrampQuoteFields)

/** What an offramp quote answers. */
export const OfframpQuoteRead = asRead(OfframpQuoteFields)
