// A signed-in session counts its end on the steady clock by default: the system clock set an
// hour forward (or back) neither renews it early nor keeps a lapsed token.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { HubSession } from '../../../../src/main/team/oidc-session'
import { steadyNow } from '../../../../src/main/team/oidc-sign-in'

describe('a session on the default clock', () => {
  afterEach(() => vi.restoreAllMocks())

  it('does not renew when the system clock jumps an hour forward', async () => {
    const session = new HubSession({
      // Nothing listens there: a renewal would fail, so a token answered is one not renewed.
      hubUrl: 'http://127.0.0.1:9',
      tokens: { accessToken: 'rda_now', refreshToken: 'rdr_now', expiresAt: steadyNow() + 15 * 60_000, operator: 'ana', role: 'operator' },
      save: async () => undefined
    })
    vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 60 * 60_000)
    expect(await session.token()).toBe('rda_now')
  })

  it('renews when its own end has come, whatever the system clock says', async () => {
    const session = new HubSession({
      hubUrl: 'http://127.0.0.1:9',
      tokens: { accessToken: 'rda_old', refreshToken: 'rdr_old', expiresAt: steadyNow() - 1, operator: 'ana', role: 'operator' },
      save: async () => undefined
    })
    vi.spyOn(Date, 'now').mockReturnValue(Date.now() - 60 * 60_000)
    await expect(session.token()).rejects.toThrow()
  })
})
