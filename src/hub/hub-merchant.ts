// The merchant the hub serves: a live service named on the command line, or a sandbox the
// hub starts for itself (its own credentials), as the profile every operator is shown.
import type { SandboxOptions } from '../main/profile-session'
import { startSandbox, type Sandbox } from '../sandbox'
import type { Profile } from '../shared/ipc/contract'

export type MerchantTarget =
  { kind: 'sandbox'; sandbox?: SandboxOptions } | { kind: 'live'; baseUrl: string; serviceName: string; apiKey: string; apiSecret: string }

export interface Merchant {
  profile: Profile
  secret: string
  /** The sandbox the hub started (closed with the hub), or null for a live merchant. */
  sandbox: Sandbox | null
}

export async function openMerchant(m: MerchantTarget): Promise<Merchant> {
  if (m.kind === 'live') {
    const { baseUrl, serviceName, apiKey } = m
    return { profile: { id: 'hub', name: 'Team hub', kind: 'live', baseUrl, serviceName, apiKey }, secret: m.apiSecret, sandbox: null }
  }
  const sandbox = await startSandbox({ ...m.sandbox, host: '127.0.0.1', port: 0 })
  return {
    profile: {
      id: 'hub',
      name: 'Team hub (sandbox)',
      kind: 'sandbox',
      baseUrl: sandbox.url,
      serviceName: sandbox.serviceName,
      apiKey: sandbox.apiKey
    },
    secret: sandbox.apiSecret,
    sandbox
  }
}
