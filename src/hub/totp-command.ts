// `npm run hub -- operator totp enrol NAME`: enrols a token operator's second factor and prints,
// this once, what their authenticator app takes (a QR code in the terminal, the otpauth:// URI
// and the secret to type in) and their one-time recovery codes. Enrolling again replaces the
// secret and every recovery code.
import QRCode from 'qrcode'
import { UsageError } from './cli-errors'
import { CLI_ACTOR } from './hub-audit'
import type { CliIo } from './hub-paths'
import type { HubStore } from './hub-store'
import { OperatorError } from './operators'
import { enrolSecondFactor } from './second-factor'

export async function totpCommand(store: HubStore, positionals: string[], io: CliIo, now = Date.now): Promise<number> {
  const [verb, name, ...extra] = positionals
  if (verb !== 'enrol' || !name || extra.length) throw new UsageError('operator totp enrol NAME')
  const op = (await store.operators.list()).find((o) => o.name.toLowerCase() === name.trim().toLowerCase())
  if (!op) throw new OperatorError('not_found', `no active operator named ${JSON.stringify(name.trim())}`)
  if (op.account === 'service')
    throw new OperatorError('invalid', `${op.name} is a service account: it signs in with its token alone and cannot enrol a second factor`)
  const e = await enrolSecondFactor(store.secondFactors, op.name, 'rampdesk-hub', now())
  store.audit.append(CLI_ACTOR, 'team:enrolSecondFactor', { name: op.name })
  const qr = await QRCode.toString(e.uri, { type: 'terminal', small: true, errorCorrectionLevel: 'M' })
  io.out(`enrolled a second factor for ${op.name}: scan this with their authenticator app (shown this once):`)
  io.out(qr)
  io.out(`or add it by hand: ${e.uri}`)
  io.out(`secret (base32): ${e.secret}`)
  io.out('recovery codes (each works once in place of a code; keep them apart from the token):')
  for (const c of e.recoveryCodes) io.out(`  ${c}`)
  return 0
}
