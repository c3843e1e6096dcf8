// The contract is one file per namespace put together by spreading their channel tables:
// a channel in the wrong file, or one name in two files (the later silently replacing the
// earlier), would pass the type check.
import { describe, expect, it } from 'vitest'
import { channelNames } from '../../../../src/shared/ipc/contract'
import { activityChannels } from '../../../../src/shared/ipc/contract/activity'
import { alertsChannels } from '../../../../src/shared/ipc/contract/alerts'
import { appChannels } from '../../../../src/shared/ipc/contract/app'
import { auditChannels } from '../../../../src/shared/ipc/contract/audit'
import { bankChannels } from '../../../../src/shared/ipc/contract/bank'
import { budgetChannels } from '../../../../src/shared/ipc/contract/budget'
import { configChannels } from '../../../../src/shared/ipc/contract/config'
import { confirmChannels } from '../../../../src/shared/ipc/contract/confirm'
import { diagnosticsChannels } from '../../../../src/shared/ipc/contract/diagnostics'
import { ordersChannels } from '../../../../src/shared/ipc/contract/orders'
import { profilesChannels } from '../../../../src/shared/ipc/contract/profiles'
import { quotesChannels } from '../../../../src/shared/ipc/contract/quotes'
import { secretsChannels } from '../../../../src/shared/ipc/contract/secrets'
import { settingsChannels } from '../../../../src/shared/ipc/contract/settings'
import { syncChannels } from '../../../../src/shared/ipc/contract/sync'
import { teamChannels } from '../../../../src/shared/ipc/contract/team'
import { tickersChannels } from '../../../../src/shared/ipc/contract/tickers'
import { trayChannels } from '../../../../src/shared/ipc/contract/tray'
import { webhooksChannels } from '../../../../src/shared/ipc/contract/webhooks'

const tables: Record<string, object> = {
  activity: activityChannels,
  alerts: alertsChannels,
  app: appChannels,
  audit: auditChannels,
  bank: bankChannels,
  budget: budgetChannels,
  config: configChannels,
  confirm: confirmChannels,
  diagnostics: diagnosticsChannels,
  orders: ordersChannels,
  profiles: profilesChannels,
  quotes: quotesChannels,
  secrets: secretsChannels,
  settings: settingsChannels,
  sync: syncChannels,
  team: teamChannels,
  tickers: tickersChannels,
  tray: trayChannels,
  webhooks: webhooksChannels
}

describe('contract: one file per namespace', () => {
  it("each namespace's file holds only its own channels", () => {
    for (const [ns, table] of Object.entries(tables))
      for (const name of Object.keys(table)) expect(name.split(':')[0], `${name} in ${ns}'s file`).toBe(ns)
  })

  it('the index holds every channel of every file, none lost to another with the same name', () => {
    const all = Object.values(tables).flatMap((t) => Object.keys(t))
    expect(new Set(all).size).toBe(all.length)
    expect([...channelNames].sort()).toEqual(all.sort())
  })
})
