// /readyz's verdict: ready only when every check is, a check that throws is a failed check
// with its reason, and the answer is worked out at most once per cacheMs.
import { describe, expect, it } from 'vitest'
import { soleHubRole, type RoleState } from '../../../src/hub/hub-role'
import { readinessProbe, type ReadinessCheck } from '../../../src/hub/readiness'

describe('readiness', () => {
  it('is ready only when the store and the service are, and names the role', () => {
    let store: ReadinessCheck = { ok: true, detail: 'fine' }
    let upstream: ReadinessCheck = { ok: true, detail: 'fine' }
    let t = 0
    const probe = readinessProbe({ store: () => store, upstream: () => upstream, role: soleHubRole(() => 5), now: () => t, cacheMs: 0 })
    expect(probe()).toMatchObject({ ok: true, role: 'leader', checks: { role: { ok: true, role: 'leader', since: 5 } } })
    upstream = { ok: false, detail: 'the service stopped answering' }
    t++
    expect(probe()).toMatchObject({ ok: false, checks: { upstream: { ok: false }, store: { ok: true } } })
    upstream = { ok: true, detail: 'fine' }
    store = { ok: false, detail: 'hub.db is at schema 2' }
    t++
    expect(probe()).toMatchObject({ ok: false, checks: { store: { ok: false, detail: 'hub.db is at schema 2' } } })
  })

  it('names the epoch of the lease a leader on PostgreSQL holds, and none for a follower', () => {
    let role: RoleState = { role: 'leader', since: 7, detail: 'holds the lease', lease: { epoch: 4, holder: 'hub-a' } }
    const probe = readinessProbe({
      store: () => ({ ok: true, detail: '' }),
      upstream: () => ({ ok: true, detail: '' }),
      role: { current: () => role },
      cacheMs: 0
    })
    expect(probe().checks.role).toEqual({ ok: true, detail: 'holds the lease', role: 'leader', since: 7, epoch: 4 })
    role = { role: 'follower', since: 8, detail: 'hub-b holds the lease (epoch 5)' }
    expect(probe().checks.role).toEqual({ ok: true, detail: 'hub-b holds the lease (epoch 5)', role: 'follower', since: 8 })
  })

  it('counts a check that throws as failed, with its reason', () => {
    const probe = readinessProbe({
      store: () => {
        throw new Error('SQLITE_IOERR: disk I/O error')
      },
      upstream: () => ({ ok: true, detail: '' }),
      role: soleHubRole()
    })
    expect(probe()).toMatchObject({ ok: false, checks: { store: { ok: false, detail: 'SQLITE_IOERR: disk I/O error' } } })
  })

  it('works the answer out at most once per cacheMs', () => {
    let calls = 0
    let t = 0
    const probe = readinessProbe({
      store: () => ({ ok: ++calls > 0, detail: '' }),
      upstream: () => ({ ok: true, detail: '' }),
      role: soleHubRole(),
      now: () => t
    })
    for (let i = 0; i < 1000; i++) probe()
    expect(calls).toBe(1)
    t += 1000
    probe()
    expect(calls).toBe(2)
  })
})
