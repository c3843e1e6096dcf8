// Signed webhook requests as different real senders write them (the live-service notes,
// last section): compact JSON, Python's json.dumps default (spaces after ',' and ':',
// non-ASCII escaped), PHP's json_encode ('/' escaped as '\/'), the body alone without the
// {timestamp, body} wrapper. Signed here with node:crypto directly, not with the app's
// signing module, so a mistake shared by both cannot pass unnoticed.
import { createHmac } from 'node:crypto'

export type SenderForm = 'compact' | 'spaced' | 'slashEscaped' | 'bodyOnly'

export const SENDER_FORMS: readonly SenderForm[] = ['compact', 'spaced', 'slashEscaped', 'bodyOnly']

/** What the inbox should log for each form. */
export const LOGGED_FORM: Record<SenderForm, string> = {
  compact: 'timestamp+body (compact)',
  spaced: 'timestamp+body (spaced)',
  slashEscaped: 'timestamp+body (slash-escaped)',
  bodyOnly: 'body only'
}

/** Python's json.dumps(value) with its defaults: ', ' and ': ' separators, ensure_ascii. */
export function pythonDumps(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  }
  if (Array.isArray(value)) return `[${value.map(pythonDumps).join(', ')}]`
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined)
  return `{${entries.map(([k, v]) => `${pythonDumps(k)}: ${pythonDumps(v)}`).join(', ')}}`
}

/** PHP's json_encode: compact, with every '/' in a string written '\/'. JSON has '/' nowhere else. */
export function phpJsonEncode(value: unknown): string {
  return JSON.stringify(value).replace(/\//g, '\\/')
}

/** The payload header value a sender of this form would send. */
export function payloadText(form: SenderForm, body: unknown, timestamp: number): string {
  const wrapped = { timestamp, body }
  const json =
    form === 'compact'
      ? JSON.stringify(wrapped)
      : form === 'spaced'
        ? pythonDumps(wrapped)
        : form === 'slashEscaped'
          ? phpJsonEncode(wrapped)
          : JSON.stringify(body)
  return Buffer.from(json, 'utf8').toString('base64')
}

export function hmacHex(payload: string, secret: string): string {
  return createHmac('sha512', secret).update(payload, 'utf8').digest('hex')
}

export interface SignedWebhook {
  headers: Record<string, string>
  body: string
  payload: string
}

/** A complete webhook request: JSON body plus x-<service>-payload and -signature. */
export function signedWebhook(
  record: unknown,
  o: { secret: string; timestamp: number; form?: SenderForm; serviceName?: string; payload?: string; body?: string }
): SignedWebhook {
  const payload = o.payload ?? payloadText(o.form ?? 'compact', record, o.timestamp)
  const name = o.serviceName ?? 'service'
  return {
    payload,
    body: o.body ?? JSON.stringify(record),
    headers: {
      'content-type': 'application/json;charset=UTF-8',
      [`x-${name}-payload`]: payload,
      [`x-${name}-signature`]: hmacHex(payload, o.secret)
    }
  }
}
