// An order told as an operator on the phone needs it: the amounts that matter with their
// units (order-amounts.ts), the text to copy to the customer, and what "Check now" found
// or why it could not ask, in plain words. Pure, so the order detail's sentences are
// unit-tested; the detail only places them.
import type { ErrorInfo, OrderCheck, OrderType } from '../ipc/contract'
import { amountUnit, decimalOf, feeTotals, unitText, type AmountUnit, type UnitNames } from './order-amounts'
import { formatDecimal, type DecimalString } from '../money'
import { statusInfo } from './status'

/** The names and formats amounts are written with. */
export interface AmountNames extends UnitNames {
  /** The fiat's display decimals (fiatDecimals). */
  fiatDp: number
  locale: string
  /** The network's name ("BEP20"), for the customer text. */
  network?: string
}

/** Every digit the amount has, at least `minDp` places, grouped as the locale writes numbers. */
function fullText(v: DecimalString, minDp: number, locale: string): string {
  const places = v.split('.')[1]?.length ?? 0
  return formatDecimal(v, Math.max(minDp, places), locale)
}

/** "1,000.00 INR", "11.52 USDT", "86.8 INR per USDT"; null when the value is missing or not a number. */
export function amountWithUnit(value: unknown, unit: AmountUnit, n: AmountNames): string | null {
  const v = decimalOf(value)
  if (v === null) return null
  return `${fullText(v, unit === 'coin' ? 0 : n.fiatDp, n.locale)} ${unitText(unit, n)}`
}

/** A field of the record with its unit (order-amounts.ts), or null. */
function field(type: OrderType, record: Readonly<Record<string, unknown>>, key: string, n: AmountNames): string | null {
  const unit = amountUnit(type, key)
  return unit === null ? null : amountWithUnit(record[key], unit, n)
}

export interface AmountLine {
  label: string
  text: string
}

/**
 * The amounts an operator reads out first, each with its unit: what the customer paid and
 * received, and the fees added up per unit ("Fees in INR together").
 */
export function keyAmounts(type: OrderType, record: Readonly<Record<string, unknown>>, n: AmountNames): AmountLine[] {
  const out: AmountLine[] = []
  const push = (label: string, text: string | null) => text !== null && out.push({ label, text })
  if (type === 1) {
    push('Customer pays', field(1, record, 'fiatAmount', n))
    const delivered = field(1, record, 'actualCryptoAmount', n)
    if (delivered !== null) push('Crypto delivered', delivered)
    else push('Crypto quoted', field(1, record, 'expectedCryptoAmount', n))
  } else {
    const sold = field(2, record, 'actualQuantity', n)
    if (sold !== null) push('Crypto sold', sold)
    else push('Crypto to sell', field(2, record, 'expectedQuantity', n))
    push('Fiat paid out', field(2, record, 'actualFiatAmount', n))
  }
  const fees = feeTotals(type, record)
  if (fees.fiat !== null) push(`Fees in ${n.fiat} together`, amountWithUnit(fees.fiat, 'fiat', n))
  if (fees.coin !== null) push(`Network fee in ${n.coin}`, amountWithUnit(fees.coin, 'coin', n))
  return out
}

/** "…05c3": the end of a wallet, as read out on the phone. */
const walletEnd = (w: unknown): string | null => (typeof w === 'string' && w.length > 0 ? (w.length > 8 ? `…${w.slice(-6)}` : w) : null)

/**
 * The order as a customer may be told it, to copy into a chat or an email: what it is,
 * its status in words, every amount with its unit and the wallet's end. Nothing internal
 * (no status number, no ids but the order's).
 */
export function customerText(type: OrderType, orderId: number, record: Readonly<Record<string, unknown>>, n: AmountNames): string {
  const status = typeof record.status === 'number' ? statusInfo(type, record.status) : null
  const on = n.network ? ` on ${n.network}` : ''
  const lines = [`Order ${orderId}: ${type === 1 ? 'buying' : 'selling'} ${n.coin}${on}`]
  if (status) lines.push(`Status: ${status.label}`)
  for (const a of keyAmounts(type, record, n)) lines.push(`${a.label.replace('Customer pays', 'You pay')}: ${a.text}`)
  const wallet = walletEnd(record.walletAddress)
  if (wallet && type === 1) lines.push(`To the wallet ending ${wallet}`)
  if (typeof record.transactionHash === 'string' && record.transactionHash !== '') lines.push(`Transaction: ${record.transactionHash}`)
  return lines.join('\n')
}

/** What "Check now" found, in words ("Checked with the service just now: still Checking payment."). */
export function checkResultText(type: OrderType, check: OrderCheck): string {
  if (check.kind === 'unknown-order')
    return 'Checked with the service just now: it does not know this order. It may have been removed; check with the service before telling the customer anything.'
  const now = statusInfo(type, check.status)
  const kept = check.kept ? '' : ' The team hub that leads keeps the order up to date.'
  if (check.previous === null || check.previous === check.status)
    return `Checked with the service just now: ${check.previous === null ? '' : 'still '}${now.label}.${kept}`
  return `Checked with the service just now: now ${now.label} (it was ${statusInfo(type, check.previous).label}).${kept}`
}

/** Why "Check now" could not ask, in words; the kind and code stay for the tooltip. */
export function checkFailureText(e: Pick<ErrorInfo, 'kind' | 'code' | 'nextSlotAt'>, time: (ms: number) => string): string {
  const head = 'Could not check with the service just now: '
  switch (e.kind) {
    case 'network':
    case 'timeout':
      return `${head}the service cannot be reached. The status shown is the last one confirmed; try again in a moment.`
    case 'rate_limited':
      return `${head}too many requests were sent in the last minute. Try again${e.nextSlotAt ? ` after ${time(e.nextSlotAt)}` : ' in a minute'}.`
    case 'hub_unreachable':
      return `${head}your team's hub cannot be reached. The status shown is the last one confirmed.`
    case 'access_revoked':
    case 'forbidden':
    case 'forbidden_sender':
      return `${head}your role on the team hub does not allow it. Ask your team's admin.`
    case 'auth':
    case 'missing_secret':
      return `${head}the service refused this profile's credentials. Check them in Settings.`
    case 'clock_skew':
      return `${head}this computer's clock is off. Set it to update automatically.`
    default:
      return `${head}the service refused the request. The status shown is the last one confirmed.`
  }
}
