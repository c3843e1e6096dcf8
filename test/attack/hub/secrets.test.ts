// Attack: reading the merchant's secret and API key off the hub's machine and answers as a
// local user or an operator could: the starting environment of every
// process of `npm run hub` (/proc/<pid>/environ), the files it writes, and what app:info
// tells each role.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Profile } from '../../../src/shared/ipc/contract'
import { environOf, processTree, recordAttack, startHubProcess, type HubProcess } from './hub-process'

function filesUnder(dir: string): string[] {
  const out: string[] = []
  for (const e of readdirSync(dir)) {
    const p = join(dir, e)
    if (statSync(p).isDirectory()) out.push(...filesUnder(p))
    else out.push(p)
  }
  return out
}

describe('the secret on stdin (npm run hub -- serve --api-secret-fd 0)', () => {
  let hub: HubProcess
  beforeAll(async () => {
    hub = await startHubProcess({ viaNpm: true, secretVia: 'stdin' })
  }, 120_000)
  afterAll(async () => {
    await hub?.stop()
  })

  it('is in the starting environment of no process of the tree, and in no file the hub writes', async () => {
    const admin = hub.addOperator('ada', 'admin')
    // The hub signs with it: the service answers a signed call.
    expect((await hub.call(admin, 'config:refresh')).ok).toBe(true)
    const tree = processTree(hub.rootPid)
    expect(tree.length).toBeGreaterThanOrEqual(2)
    const holding = tree.filter((p) => environOf(p).includes(hub.sandbox.apiSecret))
    const files = filesUnder(hub.dataDir).filter((f) => readFileSync(f).includes(hub.sandbox.apiSecret))
    recordAttack(
      'the API secret read from the process tree and the data folder',
      { processes: tree.length, processesHoldingSecret: holding.length, filesHoldingSecret: files.length },
      { processesHoldingSecret: '= 0', filesHoldingSecret: '= 0' }
    )
    expect(holding).toEqual([])
    expect(files).toEqual([])
    expect(hub.output()).not.toContain(hub.sandbox.apiSecret)
  })

  it('gives the merchant’s API key to admins only', async () => {
    const admin = hub.addOperator('adam', 'admin')
    const viewer = hub.addOperator('vic', 'viewer')
    const operator = hub.addOperator('otto', 'operator')
    const key = hub.sandbox.apiKey
    expect((await hub.call<{ profile: Profile }>(admin, 'app:info')).value!.profile.apiKey).toBe(key)
    for (const t of [viewer, operator]) {
      const info = await hub.call<{ profile: Profile }>(t, 'app:info')
      expect(info.value!.profile.apiKey).toBe('')
      expect(JSON.stringify(info)).not.toContain(key)
    }
  })
})

describe('the secret in RAMPDESK_API_SECRET (the less safe way)', () => {
  let hub: HubProcess
  beforeAll(async () => {
    hub = await startHubProcess({ secretVia: 'env' })
  })
  afterAll(async () => {
    await hub?.stop()
  })

  it('works, and the hub warns that the variable stays readable in the processes’ starting environment', () => {
    expect(hub.output()).toMatch(/warning: the API secret came from RAMPDESK_API_SECRET: it stays readable/)
    expect(hub.output()).not.toContain(hub.sandbox.apiSecret)
  })
})
