// Quote amounts go to the service as JSON numbers, as the spec writes them; the app holds
// them as decimal strings. An amount is sent only when the number says exactly that decimal.
import { ApiError } from '../../shared/api/errors'
import { isDecimalText, toDecimalString, type DecimalString } from '../../shared/money'

/** An amount as the JSON number the spec wants, refused when the number would not say the same thing. */
export function jsonAmount(field: string, amount: DecimalString): number {
  const n = Number(amount)
  if (typeof amount !== 'string' || !isDecimalText(amount) || !Number.isFinite(n) || toDecimalString(n) !== toDecimalString(amount))
    throw new ApiError({
      kind: 'invalid_request',
      endpoint: 'quotes',
      path: field,
      message: `${field} ${JSON.stringify(amount)} cannot be sent exactly as a JSON number`
    })
  return n
}
