// The first-run test of a live connection, before anything is saved: first reach the
// service with an unsigned call (base URL, network, service name), then sign one cheap
// call (API key, secret, clock). A failure is put in the operator's words with what to do
// next; diagnoseConnection() does that and is pure, so each cause is unit-tested.
import { ApiClient } from './api/client'
import { explainError, toErrorInfo, type ApiErrorInfo } from '../shared/api/errors'
import { authHeaderNames, endpointPath } from '../shared/api/endpoints'
import type { ConnectionCause, ConnectionCheck, ConnectionInput } from '../shared/ipc/contract'

export type ConnectionStep = 'reach' | 'sign'

export interface Diagnosis {
  cause: ConnectionCause
  title: string
  explanation: string
  next: string
}

export interface ConnectionContext {
  baseUrl: string
  serviceName: string
}

const AGAIN = 'Then test again.'

function host(baseUrl: string): string {
  try {
    return new URL(baseUrl).host
  } catch {
    return baseUrl
  }
}

/** Why a step failed and what the operator can do about it. */
export function diagnoseConnection(step: ConnectionStep, e: ApiErrorInfo, ctx: ConnectionContext): Diagnosis {
  const where = host(ctx.baseUrl)
  const msg = e.message
  const status = e.code ?? e.httpStatus
  if (e.kind === 'network' || e.kind === 'timeout') {
    const why =
      e.kind === 'timeout'
        ? `${where} did not answer in time.`
        : /ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(msg)
          ? `The host name ${where} was not found.`
          : /ECONNREFUSED/i.test(msg)
            ? `Nothing accepts connections at ${where}.`
            : /CERT|SSL|TLS|self[- ]signed/i.test(msg)
              ? `The connection to ${where} is not trusted: its certificate was refused (${msg}).`
              : `The connection to ${where} failed (${msg}).`
    return {
      cause: 'network',
      title: 'Rampdesk cannot reach the service',
      explanation: `${why} Nothing was sent with your key.`,
      next: `Check the base URL (https://, host name and port) for typos, that this computer is online, and that no firewall, proxy or VPN blocks ${where}. ${AGAIN}`
    }
  }
  if (status === 404 || status === 405) {
    return {
      cause: 'service_name',
      title: 'The service does not know these addresses',
      explanation: `${where} answered "not found" for ${endpointPath(ctx.serviceName, step === 'reach' ? 'publicAllGasFee' : 'merchantHistory')}. The service name "${ctx.serviceName}" is the first part of every path (and the middle word of the ${authHeaderNames(ctx.serviceName).apiKey} header), so it is most likely wrong, or the base URL has a path it should not have.`,
      next: `Use the service name your provider gave you, in lowercase, and a base URL with no path after the host. ${AGAIN}`
    }
  }
  if (e.kind === 'clock_skew' || /ahead of time|expired|timestamp/i.test(msg)) {
    const by =
      e.skewMs !== undefined && Number.isFinite(e.skewMs) && e.skewMs !== 0 ? ` by about ${Math.round(Math.abs(e.skewMs) / 1000)} s` : ''
    return {
      cause: 'clock',
      title: "This computer's clock is off",
      explanation: `The service refused the request's time ("${msg}"): every request carries this computer's time, and the service accepts it only when it is close to its own${by ? `; they differ${by}` : ''}.`,
      next: `Turn on "set time automatically" in the system's date and time settings. ${AGAIN}`
    }
  }
  if (e.kind === 'auth' && status === 403) {
    return {
      cause: 'forbidden',
      title: 'The key may not use the merchant API',
      explanation: `The service knows the key but refused it for this call ("${msg}").`,
      next: 'Ask your provider to enable merchant API access for this key, or use the key they issued for it.'
    }
  }
  if (e.kind === 'auth' && /api[ -]?key|missing authentication/i.test(msg)) {
    return {
      cause: 'bad_key',
      title: 'The service does not accept this API key',
      explanation: `The service refused the key ("${msg}"). A key from another service or environment (a test key on the live service) is refused the same way.`,
      next: `Copy the API key again from your provider, without spaces, and check it is the live key for "${ctx.serviceName}". ${AGAIN}`
    }
  }
  if (e.kind === 'auth') {
    return {
      cause: 'bad_signature',
      title: 'The API secret does not match the key',
      explanation: `The service refused the signature ("${msg}"): requests are signed with the secret, and the service checks the signature against the secret it holds for this key.`,
      next: `Paste the API secret issued with this key again, whole (secrets are long and easy to cut short), with no space before or after. ${AGAIN}`
    }
  }
  if (e.kind === 'rate_limited') {
    return {
      cause: 'rate_limited',
      title: 'The service asks to slow down',
      explanation: explainError(e),
      next: 'Wait a minute, then test again.'
    }
  }
  if ((e.kind === 'api' || e.kind === 'http') && status !== undefined && status >= 500) {
    return {
      cause: 'service_down',
      title: 'The service has a problem on its side',
      explanation: `${where} answered ${status}${status === 503 ? ' (maintenance)' : ''}: "${msg}". Your settings may well be right.`,
      next: 'Test again in a few minutes; if it lasts, ask your provider whether the service is down.'
    }
  }
  if (step === 'reach' && (e.kind === 'schema' || e.kind === 'http' || e.kind === 'too_large')) {
    return {
      cause: 'not_the_service',
      title: 'Something answered, but not the merchant API',
      explanation: `${where} answered, but not as the merchant API does (${msg}): the base URL may point at a website, a dashboard or a proxy.`,
      next: `Use the API's base URL from your provider's documentation, not the address of their website. ${AGAIN}`
    }
  }
  return {
    cause: 'other',
    title: 'The test failed',
    explanation: explainError(e),
    next: `Check the base URL, service name, key and secret. ${AGAIN}`
  }
}

/** Runs the two steps against the connection as given; nothing is stored. */
export async function checkConnection(input: ConnectionInput, now: () => number = Date.now): Promise<ConnectionCheck> {
  const client = new ApiClient({
    profileId: 'connection-test',
    baseUrl: input.baseUrl,
    serviceName: input.serviceName,
    apiKey: input.apiKey,
    getSecret: async () => input.secret,
    // One try: the operator is waiting, and a retry would only delay the explanation.
    retry: { maxAttempts: 1 }
  })
  let step: ConnectionStep = 'reach'
  const started = now()
  const skew = () => (client.clock.sampleCount > 0 ? client.clock.skewMs : null)
  try {
    await client.publicAllGasFee({ priority: 'interactive' })
    step = 'sign'
    await client.merchantHistory({ type: 1, page: 1, pageSize: 1 }, { priority: 'interactive' })
    return {
      ok: true,
      step: null,
      cause: null,
      title: 'Connected',
      explanation: `${host(input.baseUrl)} answered, and accepted the key and a request signed with the secret.`,
      next: 'Save the profile and switch to it: Rampdesk then syncs orders from the live service.',
      latencyMs: now() - started,
      clockSkewMs: skew(),
      error: null
    }
  } catch (e) {
    const info = toErrorInfo(e)
    return { ok: false, step, ...diagnoseConnection(step, info, input), latencyMs: null, clockSkewMs: skew(), error: info }
  } finally {
    await client.close()
  }
}
