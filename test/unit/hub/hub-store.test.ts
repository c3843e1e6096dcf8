// The hub's own tables behave the same on both stores (hub.db and the PostgreSQL database
// hubs share): operators (a token checked at once, revocations from another process
// honoured, the last admin kept), the audit log (in order, pruned), pins per operator.
import { describe, expect, it, vi } from 'vitest'
import { hashToken, OperatorError } from '../../../src/hub/operators'
import type { WatchTarget } from '../../../src/hub/operator-watches'
import { STORE_KINDS, storeBench, unavailable } from '../../support/hub-stores'

/** How long another process's change may take to reach a hub: at once on hub.db, within about a second on PostgreSQL. */
const PROPAGATION_MS = 1_500

async function eventually(check: () => boolean, ms = PROPAGATION_MS): Promise<number> {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 10))
  }
  return Date.now() - start
}

const monitor = (): WatchTarget & { pins: Set<string> } => {
  const pins = new Set<string>()
  return { pins, watch: (t, id) => void pins.add(`${t}:${id}`), unwatch: (t, id) => void pins.delete(`${t}:${id}`) }
}

describe.each(STORE_KINDS)('the hub store on %s', (kind) => {
  describe.skipIf(unavailable(kind))('', () => {
    const bench = storeBench(kind)
    let clock = 1_800_000_000_000
    const now = () => clock

    it('authenticates a token, not a prefix or a variant, and lists operators by name', async () => {
      const { operators } = await bench.open({ now })
      const { token, operator } = await operators.add('ana', 'operator')
      expect(operator).toEqual({
        name: 'ana',
        role: 'operator',
        createdAt: clock,
        lastSeenAt: null,
        expiresAt: clock + 90 * 86_400_000,
        account: 'person'
      })
      await operators.add('Bo', 'admin')
      expect(operators.authenticate(token)).toMatchObject({ name: 'ana', role: 'operator', tokenHash: hashToken(token) })
      expect(operators.authenticate(token.slice(0, -1))).toBeNull()
      expect(operators.authenticate(token + 'x')).toBeNull()
      expect(operators.isActive(hashToken(token))).toBe(true)
      expect((await operators.list()).map((o) => o.name)).toEqual(['ana', 'Bo'])
    })

    it('refuses a token revoked by another process (the command line) within a second; the name can start again', async () => {
      const hub = await bench.open({ now })
      const cli = await bench.open({ now })
      const { token } = await hub.operators.add('ana', 'viewer')
      await hub.operators.add('root', 'admin')
      await eventually(() => cli.operators.authenticate(token) !== null || kind === 'postgres')
      await cli.operators.revoke('ANA')
      const took = await eventually(() => hub.operators.authenticate(token) === null)
      expect(took).toBeLessThan(PROPAGATION_MS)
      expect(hub.operators.isActive(hashToken(token))).toBe(false)
      const again = await cli.operators.add('ana', 'operator')
      await eventually(() => hub.operators.authenticate(again.token)?.role === 'operator')
      expect(hub.operators.authenticate(token)).toBeNull()
    })

    it('says what is wrong with a name, a role, a duplicate, an unknown operator or the last admin', async () => {
      const { operators } = await bench.open({ now })
      await expect(async () => operators.add('', 'viewer')).rejects.toThrow(OperatorError)
      await expect(async () => operators.add('ana', 'owner')).rejects.toThrow(/role must be one of viewer, operator, admin/)
      await operators.add('ana', 'admin')
      await expect(async () => operators.add('ANA', 'viewer')).rejects.toThrow(/already exists/)
      await expect(async () => operators.revoke('nobody')).rejects.toThrow(/no active operator/)
      await expect(async () => operators.revoke('ana')).rejects.toThrow(/last admin/)
      expect((await operators.revoke('ana', { allowLastAdmin: true })).name).toBe('ana')
    })

    it('records when an operator was last seen, at most once a minute', async () => {
      const { operators } = await bench.open({ now })
      const { token } = await operators.add('ana', 'viewer')
      operators.authenticate(token)
      const first = clock
      clock += 30_000
      operators.authenticate(token)
      await vi.waitFor(async () => expect((await operators.list())[0]!.lastSeenAt).toBe(first))
      clock += 31_000
      operators.authenticate(token)
      await vi.waitFor(async () => expect((await operators.list())[0]!.lastSeenAt).toBe(clock))
    })

    it('keeps the audit log in order, newest first, redacted, and prunes by age and count', async () => {
      const { audit } = await bench.open({ now })
      for (let i = 0; i < 10; i++) {
        audit.append('ada', 'x', { i, apiSecret: 'hush' })
        clock += 1000
      }
      const rows = await audit.list(100)
      expect(rows.map((e) => e.detail.i)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
      expect(JSON.stringify(rows)).not.toContain('hush')
      expect(await audit.prune(5_500, 100)).toBe(5)
      expect((await audit.list(100)).map((e) => e.detail.i)).toEqual([9, 8, 7, 6, 5])
      expect(await audit.prune(1e9, 2)).toBe(3)
      expect((await audit.list(100)).map((e) => e.detail.i)).toEqual([9, 8])
    })

    it('keeps pins per operator; the monitor polls the union until the last pin goes', async () => {
      const hub = await bench.open({ now })
      const other = await bench.open({ now })
      const m = monitor()
      await hub.watches.watch('ana', 1, 10, m)
      await hub.watches.watch('bo', 1, 10, m)
      await hub.watches.watch('bo', 2, 20, m)
      expect(hub.watches.has('ana', 1, 10)).toBe(true)
      expect(hub.watches.has('ana', 2, 20)).toBe(false)
      expect(await hub.watches.list('bo')).toEqual([
        { type: 1, orderId: 10 },
        { type: 2, orderId: 20 }
      ])
      await hub.watches.unwatch('ana', 1, 10, m)
      expect([...m.pins].sort()).toEqual(['1:10', '2:20'])
      await hub.watches.dropOperator('bo', m)
      expect([...m.pins]).toEqual([])
      // A pin made through another hub reaches this one's copy, and its monitor by reconcile.
      await other.watches.watch('cy', 1, 30, monitor())
      await eventually(() => hub.watches.has('cy', 1, 30))
      await hub.watches.reconcile([], m)
      expect([...m.pins]).toEqual(['1:30'])
    })

    it('finds the pins of operators revoked elsewhere', async () => {
      const hub = await bench.open({ now })
      await hub.operators.add('ana', 'viewer')
      await hub.operators.add('root', 'admin')
      await hub.watches.watch('ana', 1, 10, monitor())
      expect(await hub.watches.orphans()).toEqual([])
      await (await bench.open({ now })).operators.revoke('ana')
      expect(await hub.watches.orphans()).toEqual(['ana'])
    })
  })
})
