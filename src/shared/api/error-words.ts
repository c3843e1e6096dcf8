// A failure in the words an operator reads on the phone with a customer: what happened
// and what Rampdesk does or they can do, with no error code, no endpoint name and no
// library text (connect ECONNREFUSED, UND_ERR_SOCKET, a JSON path). explainError keeps
// the technical sentence, for Diagnostics, tooltips and the support log.
import { endpointNames } from './endpoints'
import { serviceErrorCodes, type ApiErrorInfo } from './errors'
import { refusalSentence } from '../access-end'
import { secondFactorWords, type SecondFactorRefusal } from '../second-factor-words'

/** Just enough of an error to word it: an ErrorInfo from IPC, an ApiErrorInfo in main. */
export type ErrorLike = Pick<ApiErrorInfo, 'message'> & {
  kind: string
  httpStatus?: number
  code?: number
  origin?: 'budget' | 'service'
  nextSlotAt?: number
  path?: string
  skewMs?: number
  bounds?: ApiErrorInfo['bounds']
  reason?: ApiErrorInfo['reason']
  secondFactor?: SecondFactorRefusal
  retryAt?: string
}

/** The local time of day to the second ("14:05:10"), when no writer of the operator's locale is given. */
const localTime = (ms: number): string =>
  new Date(ms).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' })

/** A status the service sent, in the envelope or on the wire: 5xx means trouble on its side. */
const statusOf = (e: ErrorLike): number | undefined => e.code ?? e.httpStatus
const serverSide = (e: ErrorLike): boolean => [e.code, e.httpStatus].some((s) => s !== undefined && s >= 500)

/** The service's endpoint names (merchantHistory, orderStatus, ...): integration words, never operator text. */
const ENDPOINT = new RegExp(`\\b(${endpointNames.join('|')})\\b`)

/**
 * Text written by a library or the transport rather than by a person: error codes
 * (ECONNREFUSED, UND_ERR_*), sockets and addresses, stack-like "at" lines, JSON paths.
 * Such a message is never shown to the operator; the sentence stands without it.
 */
export function isTechnicalText(text: string): boolean {
  return (
    /\b(E(CONN[A-Z]+|ADDR[A-Z]+|HOST[A-Z]+|NET[A-Z]+|AI_[A-Z]+|PIPE|TIMEDOUT|NOTFOUND|PROTO|ACCES|PERM|NOENT|MFILE|CANCELED)|UND_ERR_[A-Z_]+|ERR_[A-Z_]+)\b/.test(
      text
    ) ||
    /\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b/.test(text) ||
    /\b(socket|fetch failed|other side closed|getaddrinfo|TypeError|SyntaxError|Unexpected token|ZodError|undici)\b/i.test(text) ||
    /\bdata\[\d+\]/.test(text) ||
    ENDPOINT.test(text) ||
    // A team hub's words for its command line and the sign-in protocol: for its log, not for the operator.
    /\bnpm run\b|\boperator (totp|add|rotate|revoke)\b|\b(redirect_uri|code_challenge|code_verifier|client_id|id_token)\b|(^|\s)--[a-z][a-z-]+/.test(
      text
    )
  )
}

/** The service's own words in a refusal, when they are words a person wrote. */
const serviceWords = (m: string): string | null => {
  const t = m.trim().replace(/\.$/, '')
  return t && !isTechnicalText(t) ? t : null
}

/** " The service's minimum is 100 INR and its maximum 200000 INR." for a refusal that named them. */
function boundsWords(b: ApiErrorInfo['bounds']): string {
  if (!b || (b.minimum === undefined && b.maximum === undefined)) return ''
  const u = b.unit ? ` ${b.unit}` : ''
  if (b.minimum !== undefined && b.maximum !== undefined)
    return ` The service's minimum is ${b.minimum}${u} and its maximum ${b.maximum}${u}.`
  return b.minimum !== undefined ? ` The service's minimum is ${b.minimum}${u}.` : ` The service's maximum is ${b.maximum}${u}.`
}

/**
 * One or two plain sentences for the operator: what happened, and what Rampdesk does or they
 * can do. `time`: a time of day to the second; `minute`: to the minute (a lockout's end).
 */
export function operatorErrorText(e: ErrorLike, o: { time?: (ms: number) => string; minute?: (ms: number) => string } = {}): string {
  const secondFactor = secondFactorWords(e, o.minute ? { minute: o.minute } : {})
  if (secondFactor !== null) return secondFactor
  const at = (ms: number | undefined): string | undefined =>
    ms && Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? (o.time ?? localTime)(ms) : undefined
  switch (e.kind) {
    case 'network':
      return "The service cannot be reached. Rampdesk tries again by itself; if it lasts, check this computer's internet connection."
    case 'timeout':
      return 'The service did not answer in time. It may be slow or down; Rampdesk tries again by itself.'
    case 'aborted':
      return 'The request was cancelled.'
    case 'auth':
      return "The service refused this profile's API key or secret. Check them in Settings → Credentials."
    case 'rate_limited': {
      const when = at(e.nextSlotAt)
      return e.origin === 'budget'
        ? `Rampdesk is pacing its requests to the service's limit: this one goes ${when ? `at ${when}` : 'shortly'}. Nothing was lost.`
        : `The service asked Rampdesk to slow down; it tries again ${when ? `at ${when}` : 'shortly'}.`
    }
    case 'schema':
      return 'The service answered in a form Rampdesk cannot read. Nothing was changed; Diagnostics has the details for support.'
    case 'clock_skew': {
      const s = e.skewMs !== undefined && Number.isFinite(e.skewMs) ? ` by ${Math.round(Math.abs(e.skewMs) / 1000)} s` : ''
      return `This computer's clock is off${s}, and the service refused the request. Set the clock to update automatically.`
    }
    case 'too_large':
      return "The service's answer was too large to read. Diagnostics has the details for support."
    case 'invalid_request': {
      const words = e.path ? null : serviceWords(e.message)
      return words ? `Nothing was sent: ${words}.` : 'Nothing was sent: a value of the request is not valid. Diagnostics has the details.'
    }
    case 'missing_secret':
      return 'Nothing was sent: this profile has no API secret stored. Add it in Settings → Credentials.'
    case 'hub_unreachable':
      return "Your team's hub is unreachable. Rampdesk reconnects by itself; if it stays away, ask your team's admin whether the hub is running."
    case 'access_revoked':
      if (e.reason) return refusalSentence(e)!
      return "Your access was revoked: ask your team's admin for a new operator token, then store it in Settings → Credentials."
    case 'api':
    case 'http': {
      const s = statusOf(e)
      if (s === 503) return 'The service is down for maintenance. Rampdesk tries again by itself.'
      if (serverSide(e)) return 'The service is having trouble on its side. Rampdesk tries again by itself.'
      if (s === 429) return 'The service asked Rampdesk to slow down; it tries again shortly.'
      const words = e.kind === 'api' ? serviceWords(e.message) : null
      const meaning = s !== undefined ? serviceErrorCodes[s] : undefined
      const why = words ?? meaning ?? null
      return `The service refused the request${why ? `: ${why}` : ''}.${boundsWords(e.bounds)}`
    }
    default:
      // Kinds of Rampdesk's own (a role the hub refuses, an input it checked): their messages are written for the operator.
      return serviceWords(e.message) ?? 'Something went wrong. Diagnostics and the support log have the details.'
  }
}
