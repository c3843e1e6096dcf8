// A short description of the shape an answer came in, for the diagnostics view: where
// the spec allows more than one (allCoinLimits A or B, priceTicker and limits keys for
// types 2 and 3, allChainMapping bare or wrapped, bank details' two forms), which one
// this service uses. Never includes values: only keys and kinds, so nothing sensitive.
import type { EndpointName } from '../../shared/api/endpoints'

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const keys = (v: unknown, max = 6): string => {
  if (!isObject(v)) return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v
  const k = Object.keys(v).sort()
  return k.length === 0 ? '{}' : k.slice(0, max).join(', ') + (k.length > max ? `, … (${k.length} keys)` : '')
}
/** Keys that are all ids: "id keys" instead of listing hundreds of numbers. */
const idKeyed = (v: unknown): boolean => isObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => /^-?\d+$/.test(k))

export function describeShape(endpoint: EndpointName, bodyText: string): string | undefined {
  let json: unknown
  try {
    json = JSON.parse(bodyText)
  } catch {
    return undefined
  }
  if (!isObject(json)) return undefined
  const data = json.data
  const envelope = 'code' in json ? '' : ' (no code field)'
  switch (endpoint) {
    case 'allCoinLimits':
      return (isObject(data) && 'onramp' in data ? 'shape A (onramp by fiat)' : 'shape B (coin → chain → amount)') + envelope
    case 'allChainMapping':
      return (isObject(data) && 'networkConfig' in data ? 'wrapped: {allCoinConfig, networkConfig}' : 'bare chain map') + envelope
    case 'merchantHistory':
      return (Array.isArray(data) ? `array of ${data.length}` : keys(data)) + envelope
    case 'bankDetails': {
      if (!isObject(data)) return keys(data)
      const upi = isObject(data.upi) ? 'upi object' : 'upi text'
      const bank = Array.isArray(data.bank) ? 'bank list' : 'single bank'
      return `${upi}, ${bank}`
    }
    default:
      if (idKeyed(data)) return 'keyed by id' + envelope
      if (isObject(data)) {
        const inner = Object.entries(data).map(([k, v]) => (idKeyed(v) ? `${k}: by id` : k))
        return inner.sort().join(', ') + envelope
      }
      return (Array.isArray(data) ? 'array' : typeof data) + envelope
  }
}
