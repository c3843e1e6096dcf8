// Signs one authenticated request (spec section 5): the three X-{SERVICE}-* headers
// plus the body text to send. The body text is serialised from the very object that
// went into the payload, so the service sees exactly what was signed (step 4).
import { authHeaderNames } from '../../shared/api/endpoints'
import { encodePayload, signPayload } from '../../shared/api/signature'

export interface SignInput {
  serviceName: string
  apiKey: string
  apiSecret: string
  /** The request body; an empty object when there are no parameters. */
  body?: Record<string, unknown>
  /** Integer milliseconds since the epoch, in the service's time. */
  timestamp: number
}

export interface SignedRequest {
  headers: Record<string, string>
  bodyText: string
}

export function signRequest({ serviceName, apiKey, apiSecret, body = {}, timestamp }: SignInput): SignedRequest {
  const names = authHeaderNames(serviceName)
  const payload = encodePayload(timestamp, body)
  return {
    headers: {
      [names.apiKey]: apiKey,
      [names.payload]: payload,
      [names.signature]: signPayload(payload, apiSecret),
      Accept: 'application/json',
      'Content-Type': 'application/json;charset=UTF-8'
    },
    bodyText: JSON.stringify(body)
  }
}
