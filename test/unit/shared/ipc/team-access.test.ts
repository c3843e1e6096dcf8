// The role table: total over the contract, each role a superset of the one before, the
// desktop's own channels never served by a hub, and the lines the issue draws. Every row is
// pinned here, so a change to any channel's role fails this file until it is made here too,
// and the table in docs/hub-reference.md is read and compared with the code's.
import { describe, expect, it } from 'vitest'
import { channelNames, type ChannelName } from '../../../../src/shared/ipc/contract'
import { channelAccess, channelsOf, hubChannels, roleMay, TEAM_ROLES, type ChannelAccess } from '../../../../src/shared/ipc/team-access'
import { docsRoleTable } from '../../../support/docs-role-table'

/**
 * Every channel of the contract and the least role that may call it on a hub ('desktop':
 * never a hub's). Typed over every channel name, so a channel added to the contract is a type
 * error here until someone decides its row.
 */
const PINNED: Record<ChannelName, ChannelAccess> = {
  'app:info': 'viewer',
  'app:openExternal': 'desktop',
  'app:wake': 'desktop',
  'app:showMain': 'desktop',
  'app:openLogs': 'desktop',
  'app:openExport': 'desktop',
  'profiles:list': 'desktop',
  'profiles:create': 'desktop',
  'profiles:update': 'desktop',
  'profiles:delete': 'desktop',
  'profiles:switch': 'desktop',
  'profiles:signInInfo': 'desktop',
  'profiles:signIn': 'desktop',
  'profiles:cancelSignIn': 'desktop',
  'profiles:signOut': 'desktop',
  'profiles:test': 'desktop',
  'secrets:status': 'desktop',
  'secrets:set': 'desktop',
  'secrets:delete': 'desktop',
  'secrets:where': 'desktop',
  'secrets:test': 'desktop',
  'settings:get': 'viewer',
  'settings:update': 'admin',
  'config:get': 'viewer',
  'config:refresh': 'operator',
  'bank:get': 'viewer',
  'tickers:get': 'viewer',
  'tickers:visibility': 'viewer',
  'quotes:get': 'operator',
  'quotes:compare': 'operator',
  'orders:query': 'viewer',
  'orders:get': 'viewer',
  'orders:watch': 'operator',
  'orders:check': 'operator',
  'orders:claim': 'operator',
  'orders:note': 'operator',
  'orders:watched': 'viewer',
  'orders:export': 'desktop',
  'orders:unreadable': 'viewer',
  'sync:state': 'viewer',
  'sync:now': 'viewer',
  'sync:resync': 'admin',
  'sync:coverage': 'viewer',
  'sync:audit': 'operator',
  'budget:get': 'viewer',
  'webhooks:setUrl': 'admin',
  'webhooks:sendDummy': 'operator',
  'webhooks:resend': 'operator',
  'webhooks:deliveries': 'viewer',
  'webhooks:verify': 'operator',
  'webhooks:inbox': 'viewer',
  'webhooks:lastUrl': 'admin',
  'webhooks:relays': 'operator',
  'webhooks:retryRelays': 'admin',
  'confirm:answer': 'desktop',
  'diagnostics:get': 'operator',
  'diagnostics:text': 'operator',
  'tray:state': 'viewer',
  'alerts:list': 'viewer',
  'alerts:resend': 'operator',
  'activity:since': 'viewer',
  'activity:lastLooked': 'desktop',
  'activity:seen': 'desktop',
  'audit:list': 'admin',
  'team:access': 'viewer',
  'team:operators': 'admin',
  'team:addOperator': 'admin',
  'team:revokeOperator': 'admin',
  'team:secondFactor': 'viewer',
  'team:proveSecondFactor': 'desktop',
  'team:enrolSecondFactor': 'operator',
  'team:confirmSecondFactor': 'operator'
}

describe('the role table, pinned', () => {
  it('gives every channel of the contract exactly its pinned role', () => {
    expect(Object.keys(PINNED).sort()).toEqual([...channelNames].sort())
    const actual = Object.fromEntries(channelNames.map((c) => [c, channelAccess(c)]))
    expect(actual).toEqual(PINNED)
  })

  it('is the table docs/hub-reference.md shows, row for row', () => {
    const docs = docsRoleTable()
    expect(Object.fromEntries([...docs].sort(([a], [b]) => a.localeCompare(b)))).toEqual(
      Object.fromEntries(channelNames.map((c) => [c, channelAccess(c)] as const).sort(([a], [b]) => a.localeCompare(b)))
    )
  })

  it('never lets a viewer see the service’s base URL and request history, or the webhook URL last set', () => {
    for (const c of ['diagnostics:get', 'diagnostics:text', 'webhooks:lastUrl'] as const) expect(roleMay('viewer', c)).toBe(false)
    // What the tray shows a viewer comes from channels the viewer reads anyway.
    for (const c of ['tray:state', 'sync:state', 'sync:coverage', 'orders:query', 'orders:unreadable', 'orders:get'] as const)
      expect(roleMay('viewer', c)).toBe(true)
  })
})

describe('team roles', () => {
  it('gives every channel of the contract an access', () => {
    for (const c of channelNames) expect(['viewer', 'operator', 'admin', 'desktop']).toContain(channelAccess(c))
  })

  it('makes each role a superset of the one before', () => {
    for (let i = 1; i < TEAM_ROLES.length; i++) {
      const lower = new Set(channelsOf(TEAM_ROLES[i - 1]!))
      const higher = new Set(channelsOf(TEAM_ROLES[i]!))
      for (const c of lower) expect(higher.has(c)).toBe(true)
      expect(higher.size).toBeGreaterThan(lower.size)
    }
    expect(channelsOf('admin').sort()).toEqual([...hubChannels].sort())
  })

  it('never serves the desktop’s own profiles, keychain, windows or CSV files from a hub', () => {
    for (const c of [
      'profiles:list',
      'profiles:switch',
      'secrets:set',
      'secrets:test',
      'app:openExternal',
      'app:showMain',
      'orders:export'
    ] as const) {
      expect(channelAccess(c)).toBe('desktop')
      for (const r of TEAM_ROLES) expect(roleMay(r, c)).toBe(false)
    }
  })

  it('lets a viewer read config, tickers, bank, orders, sync and deliveries, and nothing more', () => {
    const viewer = channelsOf('viewer')
    expect(viewer).toEqual(
      expect.arrayContaining([
        'app:info',
        'config:get',
        'bank:get',
        'tickers:get',
        'tickers:visibility',
        'orders:query',
        'orders:get',
        'orders:watched',
        'sync:state',
        'budget:get',
        'webhooks:deliveries',
        'webhooks:inbox',
        'settings:get',
        'team:access'
      ])
    )
    for (const c of [
      'quotes:get',
      'orders:watch',
      'webhooks:resend',
      'webhooks:sendDummy',
      'webhooks:setUrl',
      'settings:update',
      'audit:list'
    ] as const)
      expect(roleMay('viewer', c)).toBe(false)
  })

  it('adds quotes, compare, watches, resend and dummy webhooks for an operator; setWebhookUrl, settings, operators and the audit for an admin', () => {
    for (const c of ['quotes:get', 'quotes:compare', 'orders:watch', 'webhooks:resend', 'webhooks:sendDummy'] as const) {
      expect(roleMay('operator', c)).toBe(true)
      expect(roleMay('viewer', c)).toBe(false)
    }
    for (const c of [
      'webhooks:setUrl',
      'settings:update',
      'team:addOperator',
      'team:revokeOperator',
      'team:operators',
      'audit:list'
    ] as const) {
      expect(roleMay('admin', c)).toBe(true)
      expect(roleMay('operator', c)).toBe(false)
    }
  })
})
