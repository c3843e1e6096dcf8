// secrets:* — the API secret of a live profile (a Team profile's operator token),
// write-only from the window: whether one is stored and where, where one would go now,
// set, delete, and a test call that explains its outcome.
import { ApiClient } from '../api/client'
import { transportProblem } from '../profiles/profile-store'
import { explainError, toErrorInfo } from '../../shared/api/errors'
import type { ChannelOutput } from '../../shared/ipc/contract'
import type { HandlerContext, HandlerSlice } from './context'

type SecretsContext = Pick<HandlerContext, 'profiles' | 'secrets' | 'activeProfile' | 'ready' | 'secretFor' | 'audit' | 'now'>

export function secretHandlers(c: SecretsContext): HandlerSlice<'secrets'> {
  return {
    'secrets:status': async ({ profileId }) => {
      const p = c.profiles.get(profileId)
      if (!p) throw new Error(`no profile ${profileId}`)
      if (p.kind === 'sandbox') return { has: true, backend: 'none', plaintextWarning: false }
      const backend = await c.secrets.backendOf(profileId)
      return { has: backend !== 'none', backend, plaintextWarning: backend === 'plaintext' }
    },
    'secrets:set': async ({ profileId, secret }) => {
      const p = c.profiles.get(profileId)
      if (!p) throw new Error(`no profile ${profileId}`)
      if (p.kind === 'sandbox') throw new Error('the sandbox profile uses the simulator’s own credentials')
      const backend = await c.secrets.set(profileId, secret)
      c.audit('secret.set', { profileId, backend })
      return { backend }
    },
    'secrets:delete': async ({ profileId }) => {
      await c.secrets.delete(profileId)
      c.audit('secret.delete', { profileId })
      return { ok: true }
    },
    'secrets:where': () => c.secrets.whereToStore(),
    'secrets:test': async ({ profileId }) => testConnection(c, profileId)
  }
}

async function testConnection(c: SecretsContext, profileId: string): Promise<ChannelOutput<'secrets:test'>> {
  const profile = c.profiles.get(profileId)
  if (!profile) throw new Error(`no profile ${profileId}`)
  const problem = transportProblem(profile)
  if (problem)
    return {
      ok: false,
      latencyMs: null,
      message: `Not tested: ${problem}.`,
      error: { kind: 'invalid_request', message: problem, retryable: false }
    }
  const s = profile.id === c.activeProfile().id ? await c.ready() : null
  const started = c.now()
  let client: ApiClient | null = null
  try {
    // One cheap authenticated call with no documented rate limit: a one-row history page.
    if (s) await s.client.merchantHistory({ type: 1, page: 1, pageSize: 1 }, { priority: 'interactive' })
    else {
      client = new ApiClient({
        profileId: profile.id,
        baseUrl: profile.baseUrl,
        serviceName: profile.serviceName,
        apiKey: profile.apiKey,
        getSecret: () => c.secretFor(profile)
      })
      await client.merchantHistory({ type: 1, page: 1, pageSize: 1 }, { priority: 'interactive' })
    }
    return {
      ok: true,
      latencyMs: c.now() - started,
      message: `Connected to ${profile.kind === 'sandbox' ? 'the sandbox' : profile.baseUrl}: the key and secret were accepted.`,
      error: null
    }
  } catch (e) {
    const info = toErrorInfo(e)
    return { ok: false, latencyMs: null, message: explainError(info), error: info }
  } finally {
    await client?.close()
  }
}
