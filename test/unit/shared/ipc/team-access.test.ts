// The role table: total over the contract, each role a superset of the one before, the
// desktop's own channels never served by a hub, and the lines the issue draws.
import { describe, expect, it } from 'vitest'
import { channelNames } from '../../../../src/shared/ipc/contract'
import { channelAccess, channelsOf, hubChannels, roleMay, TEAM_ROLES } from '../../../../src/shared/ipc/team-access'

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

  it('lets a viewer read config, tickers, bank, orders, sync, deliveries and diagnostics, and nothing more', () => {
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
