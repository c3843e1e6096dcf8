// What a request waiting for the rate budget fails with: the operator's words for each,
// the endpoint named, and for a full budget when its next slot opens.
import type { EndpointName } from '../../shared/api/endpoints'
import { ApiError } from '../../shared/api/errors'

export function aborted(endpoint: EndpointName): ApiError {
  return new ApiError({ kind: 'aborted', endpoint, message: 'request cancelled while waiting for the rate budget' })
}

export function refusedShared(endpoint: EndpointName, why: string): ApiError {
  return new ApiError({ kind: 'aborted', endpoint, retryable: false, message: `not sent to ${endpoint}: ${why}` })
}

export function sharedUnreachable(endpoint: EndpointName, why: string): ApiError {
  return new ApiError({
    kind: 'rate_limited',
    origin: 'budget',
    endpoint,
    message: `the request budget shared with the other hubs could not be reached (${why}); nothing is sent to ${endpoint} without it`
  })
}

export function exhausted(endpoint: EndpointName, nextSlotAt: number): ApiError {
  return new ApiError({
    kind: 'rate_limited',
    origin: 'budget',
    endpoint,
    nextSlotAt,
    message: `budget exhausted for ${endpoint}, next slot at ${new Date(nextSlotAt).toISOString()}`
  })
}
