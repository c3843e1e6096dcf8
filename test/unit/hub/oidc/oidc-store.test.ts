// What the hub keeps of sign-in through the identity provider, the same on both stores: a
// person is one operator however often they sign in, never a token operator's name; a
// revocation ends their sessions for good; a session made through one hub is honoured by
// another on the same tables; a sign-in under way is taken once; the refresh token a renewal
// replaced is found again, by any hub, until the next renewal, and the session sealed for it is
// handed out once, by one hub of two asking at once, and kept nowhere once its grace passed; one
// renewal at a time claims a session; every refresh token a renewal replaced is known until the
// session is dropped.
import { describe, expect, it } from 'vitest'
import { keyHash } from '../../../../src/hub/oidc/oidc-seal'
import { HANDOFF_PREFIX, type NewSession } from '../../../../src/hub/oidc/oidc-store'
import { STORE_KINDS, storeBench, unavailable } from '../../../support/hub-stores'

const person = { issuer: 'https://sso.example.com', subject: 'u-1', preferredName: 'ana', role: 'operator' as const }

const session = (id: string, operatorKey: string, expiresAt: number): NewSession => ({
  id,
  operatorKey,
  accessHash: keyHash(`rds_${id}`),
  accessExpiresAt: expiresAt,
  refreshHash: keyHash(`rdr_${id}`),
  sealed: 'sealed'
})

describe.each(STORE_KINDS)('OIDC sign-ins on %s', (kind) => {
  describe.skipIf(unavailable(kind))('', () => {
    const bench = storeBench(kind)
    let clock = 1_800_000_000_000
    const now = () => clock
    const refreshed = async (s: unknown) => void (await (s as { refresh?: () => Promise<void> }).refresh?.())

    it("makes a person one operator, follows their role, and never takes a token operator's name", async () => {
      const store = await bench.open({ now })
      await store.operators.add('ana', 'viewer')
      const first = await store.oidc.signIn(person, clock)
      expect(first).toMatchObject({ name: 'ana-2', role: 'operator', created: true })
      const again = await store.oidc.signIn({ ...person, role: 'admin' }, clock)
      expect(again).toMatchObject({ name: 'ana-2', role: 'admin', key: first.key, created: false, previousRole: 'operator' })
      expect((await store.operators.list()).map((o) => [o.name, o.role])).toEqual([
        ['ana', 'viewer'],
        ['ana-2', 'admin']
      ])
      expect(await store.oidc.oidcNames()).toEqual(new Set(['ana-2']))
      // The marker is no token: nothing presented as a token reaches the OIDC operator.
      expect(store.operators.authenticate(first.key)).toBeNull()
    })

    it('honours a session made through another hub, and ends it for good when the operator is revoked', async () => {
      const a = await bench.open({ now })
      const b = await bench.open({ now })
      const op = await a.oidc.signIn(person, clock)
      await a.oidc.createSession(session('s1', op.key, clock + 60_000), clock)
      await refreshed(b)
      expect(b.oidc.authenticate(keyHash('rds_s1'))).toMatchObject({ name: 'ana', role: 'operator', tokenHash: keyHash('rds_s1') })
      expect(b.oidc.isActive(keyHash('rds_s1'))).toBe(true)
      clock += 60_000
      expect(b.oidc.authenticate(keyHash('rds_s1'))).toBeNull()
      clock -= 60_000

      await b.operators.revoke('ana', { allowLastAdmin: true })
      await refreshed(a)
      expect(a.oidc.authenticate(keyHash('rds_s1'))).toBeNull()
      expect((await a.oidc.sessionByRefresh(keyHash('rdr_s1')))?.operator).toBeNull()
      // Signed in again: a new operator row, and the old session stays dead.
      const back = await a.oidc.signIn(person, clock)
      expect(back).toMatchObject({ name: 'ana', created: true })
      expect(back.key).not.toBe(op.key)
      await refreshed(a)
      expect(a.oidc.authenticate(keyHash('rds_s1'))).toBeNull()
    })

    it('rotates a session once, and takes a sign-in under way once and only before it expires', async () => {
      const store = await bench.open({ now })
      const op = await store.oidc.signIn(person, clock)
      await store.oidc.createSession(session('s1', op.key, clock + 60_000), clock)
      const next = { accessHash: keyHash('rds_s2'), accessExpiresAt: clock + 120_000, refreshHash: keyHash('rdr_s2'), sealed: 'sealed-2' }
      expect(await store.oidc.rotate('s1', keyHash('rdr_s1'), next)).toBe(true)
      expect(await store.oidc.rotate('s1', keyHash('rdr_s1'), { ...next, refreshHash: keyHash('rdr_s3') })).toBe(false)
      expect(await store.oidc.sessionByRefresh(keyHash('rdr_s1'))).toBeNull()
      expect(await store.oidc.sessionByRefresh(keyHash('rdr_s2'))).toMatchObject({ id: 's1', sealed: 'sealed-2', ended: false })
      await store.oidc.end('s1', clock)
      expect(await store.oidc.sessionByRefresh(keyHash('rdr_s2'))).toMatchObject({ ended: true })

      expect(await store.oidc.end('s1', clock)).toBe(false)

      await store.oidc.putPending('k1', 'v1', clock + 1_000)
      await store.oidc.putPending('k2', 'v2', clock + 1_000)
      expect(await store.oidc.takePending('k1', clock)).toBe('v1')
      expect(await store.oidc.takePending('k1', clock)).toBeNull()
      expect(await store.oidc.takePending('k2', clock + 1_000)).toBeNull()

      // At the cap, the oldest sign-ins under way go first; hand-overs are never counted nor dropped.
      await store.oidc.putPending(`${HANDOFF_PREFIX}h1`, 'h', clock + 100)
      expect(await store.oidc.putPending('s0', 'v0', clock + 5_000, 2)).toBe(0)
      expect(await store.oidc.putPending('s1', 'v1', clock + 2_000, 2)).toBe(0)
      expect(await store.oidc.putPending('s2', 'v2', clock + 9_000, 2)).toBe(1)
      expect(await store.oidc.putPending('s3', 'v3', clock + 7_000, 2)).toBe(1)
      expect(await store.oidc.takePending('s1', clock)).toBeNull()
      expect(await store.oidc.takePending('s0', clock)).toBeNull()
      expect(await store.oidc.takePending('s2', clock)).toBe('v2')
      expect(await store.oidc.takePending('s3', clock)).toBe('v3')
      expect(await store.oidc.takePending(`${HANDOFF_PREFIX}h1`, clock)).toBe('h')
    })

    it('keeps the refresh token a renewal replaced, with the sealed session and its deadline, for another hub to find', async () => {
      const a = await bench.open({ now })
      const b = await bench.open({ now })
      const op = await a.oidc.signIn(person, clock)
      await a.oidc.createSession(session('s1', op.key, clock + 60_000), clock)
      const next = { accessHash: keyHash('rds_s2'), accessExpiresAt: clock + 120_000, refreshHash: keyHash('rdr_s2'), sealed: 'sealed-2' }
      expect(await a.oidc.rotate('s1', keyHash('rdr_s1'), next, { sealed: 'current-session', until: clock + 60_000 })).toBe(true)
      expect(await b.oidc.sessionByPreviousRefresh(keyHash('rdr_s1'))).toMatchObject({
        id: 's1',
        ended: false,
        operator: { name: 'ana', role: 'operator' },
        previousSealed: 'current-session',
        previousUntil: clock + 60_000
      })
      expect(await b.oidc.sessionByAccess(keyHash('rds_s2'))).toMatchObject({ id: 's1', sealed: 'sealed-2' })
      expect(await b.oidc.sessionByAccess(keyHash('rds_s1'))).toBeNull()
      // A renewal without a grace forgets the token it replaced; the one before is forgotten at the next.
      const third = { ...next, accessHash: keyHash('rds_s3'), refreshHash: keyHash('rdr_s3') }
      expect(await b.oidc.rotate('s1', keyHash('rdr_s2'), third)).toBe(true)
      expect(await a.oidc.sessionByPreviousRefresh(keyHash('rdr_s1'))).toBeNull()
      expect(await a.oidc.sessionByPreviousRefresh(keyHash('rdr_s2'))).toBeNull()
      // Ended through one hub: the other says so, and ends it no second time.
      expect(await b.oidc.end('s1', clock)).toBe(true)
      expect(await a.oidc.sessionByAccess(keyHash('rds_s3'))).toMatchObject({ ended: true })
      expect(await a.oidc.end('s1', clock)).toBe(false)
    })
    it('lets one renewal at a time claim a session, on either hub, until it rotates, lets go or its claim lapses', async () => {
      const a = await bench.open({ now })
      const b = await bench.open({ now })
      const op = await a.oidc.signIn(person, clock)
      await a.oidc.createSession(session('s1', op.key, clock + 60_000), clock)
      const r1 = keyHash('rdr_s1')
      const claims = await Promise.all([
        a.oidc.claimRenewal('s1', r1, clock + 15_000, clock),
        b.oidc.claimRenewal('s1', r1, clock + 15_000, clock)
      ])
      expect(claims.filter(Boolean)).toHaveLength(1)
      // Only the claim's holder lets it go (a release with another claim's time does nothing).
      await a.oidc.releaseRenewal('s1', r1, clock + 14_000)
      expect(await b.oidc.claimRenewal('s1', r1, clock + 15_000, clock)).toBe(false)
      await a.oidc.releaseRenewal('s1', r1, clock + 15_000)
      expect(await b.oidc.claimRenewal('s1', r1, clock + 15_000, clock)).toBe(true)
      // Kept while its holder asks; lapsed, the next one claims it.
      expect(await b.oidc.extendRenewal('s1', r1, clock + 15_000, clock + 25_000)).toBe(true)
      expect(await a.oidc.extendRenewal('s1', r1, clock + 15_000, clock + 40_000)).toBe(false)
      expect(await a.oidc.claimRenewal('s1', r1, clock + 30_000, clock + 24_999)).toBe(false)
      expect(await a.oidc.claimRenewal('s1', r1, clock + 30_000, clock + 25_000)).toBe(true)
      // The lapsed holder's release leaves the new claim alone.
      await b.oidc.releaseRenewal('s1', r1, clock + 25_000)
      expect(await b.oidc.claimRenewal('s1', r1, clock + 40_000, clock + 26_000)).toBe(false)
      // Another refresh token is not the session's: nothing to claim.
      expect(await a.oidc.claimRenewal('s1', keyHash('rdr_other'), clock + 30_000, clock + 40_000)).toBe(false)
      // Rotated, the claim goes with the old token, and the new one is free to claim.
      const next = { accessHash: keyHash('rds_s2'), accessExpiresAt: clock + 120_000, refreshHash: keyHash('rdr_s2'), sealed: 'sealed-2' }
      expect(await b.oidc.rotate('s1', r1, next)).toBe(true)
      expect(await a.oidc.claimRenewal('s1', keyHash('rdr_s2'), clock + 15_000, clock)).toBe(true)
      // Ended only while it holds the token a renewal found: then nobody claims it.
      await a.oidc.releaseRenewal('s1', keyHash('rdr_s2'), clock + 15_000)
      expect(await a.oidc.end('s1', clock, r1)).toBe(false)
      expect(await a.oidc.end('s1', clock, keyHash('rdr_s2'))).toBe(true)
      expect(await b.oidc.claimRenewal('s1', keyHash('rdr_s2'), clock + 15_000, clock)).toBe(false)
    })

    it('knows every refresh token renewals replaced, from any hub, until its session is dropped', async () => {
      const a = await bench.open({ now })
      const b = await bench.open({ now })
      const op = await a.oidc.signIn(person, clock)
      await a.oidc.createSession(session('s1', op.key, clock + 60_000), clock)
      const to = (n: number) => ({
        accessHash: keyHash(`rds_s${n}`),
        accessExpiresAt: clock + 60_000,
        refreshHash: keyHash(`rdr_s${n}`),
        sealed: 's'
      })
      expect(await a.oidc.rotate('s1', keyHash('rdr_s1'), to(2))).toBe(true)
      expect(await b.oidc.rotate('s1', keyHash('rdr_s2'), to(3))).toBe(true)
      expect(await a.oidc.rotate('s1', keyHash('rdr_s3'), to(4))).toBe(true)
      for (const old of ['rdr_s1', 'rdr_s2', 'rdr_s3'])
        expect(await b.oidc.sessionByReplacedRefresh(keyHash(old))).toMatchObject({ id: 's1', ended: false, operator: { name: 'ana' } })
      // The current token was replaced by nothing; a stranger's never was.
      expect(await a.oidc.sessionByReplacedRefresh(keyHash('rdr_s4'))).toBeNull()
      expect(await a.oidc.sessionByReplacedRefresh(keyHash('rdr_x'))).toBeNull()
      // A failed rotation (another came first) replaced nothing.
      expect(await a.oidc.rotate('s1', keyHash('rdr_s9'), to(5))).toBe(false)
      expect(await a.oidc.sessionByReplacedRefresh(keyHash('rdr_s9'))).toBeNull()
      // Once the session is dropped (ended over SESSION_KEEP_MS ago), so are its replaced tokens.
      await a.oidc.end('s1', clock)
      const later = clock + 31 * 24 * 60 * 60_000
      await a.oidc.createSession(session('s9', op.key, later + 60_000), later)
      expect(await b.oidc.sessionByReplacedRefresh(keyHash('rdr_s1'))).toBeNull()
    })

    it('hands the session sealed for the replaced refresh token out once, by one of two hubs asking at once', async () => {
      const a = await bench.open({ now })
      const b = await bench.open({ now })
      const op = await a.oidc.signIn(person, clock)
      await a.oidc.createSession(session('s1', op.key, clock + 60_000), clock)
      const next = { accessHash: keyHash('rds_s2'), accessExpiresAt: clock + 120_000, refreshHash: keyHash('rdr_s2'), sealed: 'sealed-2' }
      await a.oidc.rotate('s1', keyHash('rdr_s1'), next, { sealed: 'current-session', until: clock + 60_000 })
      // The session's current refresh token is not the one replaced: nothing.
      expect(await a.oidc.takePrevious('s1', keyHash('rdr_s2'), clock)).toBeNull()
      const taken = await Promise.all([
        a.oidc.takePrevious('s1', keyHash('rdr_s1'), clock),
        b.oidc.takePrevious('s1', keyHash('rdr_s1'), clock)
      ])
      expect(taken.filter((t) => t !== null)).toEqual(['current-session'])
      expect(await a.oidc.takePrevious('s1', keyHash('rdr_s1'), clock)).toBeNull()
      // The hash stays: a second presentation is still known as the replaced token.
      expect(await b.oidc.sessionByPreviousRefresh(keyHash('rdr_s1'))).toMatchObject({
        id: 's1',
        previousSealed: null,
        previousUntil: clock + 60_000
      })
    })

    it('keeps no sealed session once its grace passed or its session ended, but still knows the replaced token', async () => {
      const store = await bench.open({ now })
      const op = await store.oidc.signIn(person, clock)
      for (const id of ['s1', 's4', 's7']) await store.oidc.createSession(session(id, op.key, clock + 600_000), clock)
      const rotateWithGrace = (id: string, to: string, until: number) =>
        store.oidc.rotate(
          id,
          keyHash(`rdr_${id}`),
          { accessHash: keyHash(`rds_${to}`), accessExpiresAt: clock + 600_000, refreshHash: keyHash(`rdr_${to}`), sealed: 'sealed' },
          { sealed: `copy-${id}`, until }
        )
      await rotateWithGrace('s1', 's2', clock + 60_000)
      await rotateWithGrace('s4', 's5', clock + 30_000)
      await rotateWithGrace('s7', 's8', clock + 60_000)
      const left = async () => {
        const copies: (string | null | undefined)[] = []
        for (const id of ['s1', 's4', 's7']) copies.push((await store.oidc.sessionByPreviousRefresh(keyHash(`rdr_${id}`)))?.previousSealed)
        return copies
      }
      expect(await left()).toEqual(['copy-s1', 'copy-s4', 'copy-s7'])
      // An ended session keeps no copy.
      await store.oidc.end('s7', clock)
      expect(await left()).toEqual(['copy-s1', 'copy-s4', null])
      // Past s4's grace: read, it is gone (the sweep has nothing left of it to forget).
      clock += 30_001
      try {
        expect(await left()).toEqual(['copy-s1', null, null])
        expect(await store.oidc.takePrevious('s4', keyHash('rdr_s4'), clock)).toBeNull()
        // Past s1's too, forgotten by the sweep without being read.
        clock += 30_000
        expect(await store.oidc.forgetPrevious(clock)).toBe(1)
        expect(await store.oidc.forgetPrevious(clock)).toBe(0)
        expect(await store.oidc.sessionByPreviousRefresh(keyHash('rdr_s1'))).toMatchObject({ id: 's1', ended: false, previousSealed: null })
      } finally {
        clock -= 60_001
      }
    })
  })
})
