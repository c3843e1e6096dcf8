// Which settings changes weaken security and so need the operator's confirmation in main.
import { describe, expect, it } from 'vitest'
import { weakeningPrompts } from '../../../src/main/security-switches'
import { DEFAULT_SETTINGS } from '../../../src/main/app-settings'
import type { Settings } from '../../../src/shared/ipc/contract'

const s = (patch: Partial<Settings> = {}): Settings => ({ ...structuredClone(DEFAULT_SETTINGS), ...patch })
const inbox = (enabled: boolean, host: string, port = 0) => ({ inbox: { ...DEFAULT_SETTINGS.inbox, enabled, host, port } })
const changes = (before: Settings, next: Settings) => weakeningPrompts(before, next).map((p) => p.change)

describe('weakeningPrompts', () => {
  it('asks to allow plaintext secrets, never to forbid them again', () => {
    expect(changes(s(), s({ allowPlaintextSecrets: true }))).toEqual(['allowPlaintextSecrets'])
    expect(changes(s({ allowPlaintextSecrets: true }), s())).toEqual([])
    expect(changes(s({ allowPlaintextSecrets: true }), s({ allowPlaintextSecrets: true, theme: 'dark' }))).toEqual([])
  })

  it('asks when the inbox comes to listen beyond loopback, however it gets there', () => {
    expect(changes(s(inbox(false, '127.0.0.1')), s(inbox(true, '0.0.0.0')))).toEqual(['inboxBeyondLoopback'])
    // An address set while off is asked about when the inbox is turned on.
    expect(changes(s(inbox(false, '127.0.0.1')), s(inbox(false, '0.0.0.0')))).toEqual([])
    expect(changes(s(inbox(false, '0.0.0.0')), s(inbox(true, '0.0.0.0')))).toEqual(['inboxBeyondLoopback'])
    // Moving an exposed inbox to another address is asked again; another port on the same address is not.
    expect(changes(s(inbox(true, '0.0.0.0')), s(inbox(true, '192.0.2.7')))).toEqual(['inboxBeyondLoopback'])
    expect(changes(s(inbox(true, '0.0.0.0', 1)), s(inbox(true, '0.0.0.0', 2)))).toEqual([])
    for (const host of ['127.0.0.1', '::1', 'localhost', '127.9.9.9'])
      expect(changes(s(inbox(false, '127.0.0.1')), s(inbox(true, host))), host).toEqual([])
    for (const host of ['::', '[::]', '::ffff:127.0.0.1', '127.1', 'example.test'])
      expect(changes(s(inbox(false, '127.0.0.1')), s(inbox(true, host))), host).toEqual(['inboxBeyondLoopback'])
    expect(changes(s(inbox(true, '0.0.0.0')), s(inbox(true, '127.0.0.1')))).toEqual([])
  })

  it('asks both, in order, when one change does both', () => {
    const p = weakeningPrompts(s(), s({ allowPlaintextSecrets: true, ...inbox(true, '0.0.0.0', 8080) }))
    expect(p.map((x) => x.change)).toEqual(['allowPlaintextSecrets', 'inboxBeyondLoopback'])
    expect(p[1]!.message).toContain('0.0.0.0, port 8080')
  })
})
