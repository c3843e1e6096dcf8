// diagnostics:* — what the app knows of the service (the diagnostics view), and the same
// as redacted plain text for a support ticket: the profile's API key and secret are
// removed by value, addresses and signatures by shape.
import { diagnosticsText } from '../diagnostics/diagnostics'
import type { HandlerContext, HandlerSlice } from './context'

export function diagnosticsHandlers(
  c: Pick<HandlerContext, 'ready' | 'activeProfile' | 'secretFor' | 'version' | 'shellKind'>
): HandlerSlice<'diagnostics'> {
  const app = () => ({ version: c.version, platform: process.platform, shell: c.shellKind })
  return {
    'diagnostics:get': async () => (await c.ready()).diagnostics(app()),
    'diagnostics:text': async () => {
      const s = await c.ready()
      const profile = c.activeProfile()
      const secret = await c.secretFor(profile).catch(() => '')
      return { text: diagnosticsText(s.diagnostics(app()), [profile.apiKey, secret]) }
    }
  }
}
