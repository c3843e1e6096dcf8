// The one http(s) URL check shared by the API request schemas (webhookUrl) and the IPC
// contract (base URLs, external links, webhook targets), so both accept the same URLs.
import { z } from 'zod'

/** True when `s` parses as a URL with the http: or https: scheme. */
export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s)
    return u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    return false
  }
}

/** A string of at most 2048 characters that is an http(s) URL; `message` is the error each caller reports. */
export const httpUrl = (message = 'expected an http(s) URL') => z.string().max(2048).refine(isHttpUrl, message)
