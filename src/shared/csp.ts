// The one Content Security Policy of every Rampdesk page: sent as a header by the
// Electron session and by the browser harness, and repeated in index.html's meta tag
// (a test keeps the three equal). No inline or remote script, no eval, no framing.

const PRODUCTION: Record<string, string[]> = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'https:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
  'object-src': ["'none'"]
}

function serialise(d: Record<string, string[]>): string {
  return Object.entries(d)
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ')
}

export const CONTENT_SECURITY_POLICY = serialise(PRODUCTION)

/**
 * The development server's variant: Vite injects component styles as <style> tags and
 * talks to its HMR server over a WebSocket. Never used for a built app.
 */
export function devContentSecurityPolicy(devServerUrl: string): string {
  const u = new URL(devServerUrl)
  return serialise({
    ...PRODUCTION,
    'style-src': ["'self'", "'unsafe-inline'"],
    'connect-src': ["'self'", `ws://${u.host}`, `${u.protocol}//${u.host}`]
  })
}
