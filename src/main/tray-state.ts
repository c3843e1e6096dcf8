// What the tray tells at a glance, worked out from the sync states and the order counts:
// by precedence, the service unreachable (offline) or order sync failing, then orders
// needing the operator (with their count), then orders in progress, then nothing. The
// icon variant, the macOS title and the Windows/Linux tooltip all come from here; the
// Electron glue only shows them. Each state is said once: the headline names it, the
// detail says only what the headline does not (what to do, what the orders shown stand
// on), in the operator's words (no error code, endpoint or library text: those are in
// Diagnostics and the support log). Pure, so every precedence is unit-tested.
import { toErrorInfo } from '../shared/api/errors'
import { operatorErrorText } from '../shared/api/error-words'
import { refusalWords } from '../shared/access-end'
import type { SyncState, TrayIcon, TrayLevel, TrayState } from '../shared/ipc/contract'

export interface TrayInputs {
  sync: readonly SyncState[]
  /** Orders in a status that needs the operator (the "needs attention" group). */
  attention: number
  /** Orders still moving (the "in progress" group). */
  inProgress: number
  /** The OS locale for counts; en-US when absent. */
  locale?: string
  /** What the app knows it may be missing (coverage gaps), in words. */
  gaps?: readonly string[]
  /**
   * Whether every order is here, in one plain line (shared/domain/proof.ts), when it is
   * not simply so: said in the tooltip instead of the gaps' technical texts.
   */
  proof?: string | null
  /** Orders stalled past their threshold (alerts:list). */
  stalled?: number
  /** Each unwell chain with open orders on it, in words ("7 withdrawals of USDT on TRC20 while its node is out of sync"). */
  chains?: readonly string[]
}

/** Errors that mean the service (or a Team profile's hub) cannot be reached at all, rather than refusing or misanswering. */
const UNREACHABLE = new Set(['network', 'timeout', 'hub_unreachable'])
/** Failures only the operator (or their admin) can end: named first, as what to do, with no promise of a retry. */
const NEEDS_SOMEONE: Record<string, { headline: string; title: string; todo: string }> = {
  access_revoked: {
    headline: "Your access was revoked: ask your team's admin",
    title: 'Access revoked',
    todo: 'Store the new operator token in Settings → Credentials.'
  },
  missing_secret: {
    headline: 'No API secret stored: add it in Settings',
    title: 'No secret',
    todo: 'Nothing is sent to the service until it is stored; your provider gives it with the API key.'
  }
}
/** Not a failure of the sync: a request cancelled by a profile switch or shutdown. */
const NOT_A_FAILURE = new Set(['aborted'])

const ICON: Record<TrayLevel, TrayIcon> = {
  offline: 'error',
  failing: 'error',
  attention: 'attention',
  progress: 'progress',
  idle: 'idle'
}

export function trayState(i: TrayInputs): TrayState {
  const n = (x: number) => formatCount(x, i.locale)
  const attention = i.attention === 1 ? '1 order needs attention' : `${n(i.attention)} orders need attention`
  const progress = i.inProgress === 1 ? '1 order in progress' : `${n(i.inProgress)} orders in progress`
  const stalled = i.stalled ?? 0
  const chains = i.chains ?? []
  const stalledLine = stalled === 1 ? '1 order stalled' : `${n(stalled)} orders stalled`
  const errors = i.sync.flatMap((s) => (s.lastError && !NOT_A_FAILURE.has(s.lastError.kind) ? [s.lastError] : []))
  const someone = errors.find((e) => Object.hasOwn(NEEDS_SOMEONE, e.kind))
  const unreachable = errors.find((e) => UNREACHABLE.has(e.kind))
  // What the orders shown stand on: a sync that succeeded once, or none yet.
  const since = i.sync.some((s) => s.lastSuccessAt !== null)
    ? ' What you see is from the last successful sync.'
    : ' Nothing has been synced yet, so no orders are shown.'

  let level: TrayLevel
  let headline: string
  let detail: string | null = null
  let title: string
  if (someone) {
    level = 'failing'
    const ended = refusalWords(someone.kind === 'access_revoked' ? someone.reason : null)
    const n = ended ?? NEEDS_SOMEONE[someone.kind]!
    ;({ headline, title } = n)
    detail = `${n.todo}${since}`
  } else if (unreachable) {
    level = 'offline'
    const hub = unreachable.kind === 'hub_unreachable'
    headline = hub ? "Offline: your team's hub cannot be reached" : 'Offline: orders are not updating'
    detail = hub
      ? `Rampdesk reconnects by itself; if it stays away, ask your team's admin whether the hub is running.${since}`
      : `The service cannot be reached; Rampdesk tries again by itself.${since}`
    title = 'Offline'
  } else if (errors[0]) {
    level = 'failing'
    headline = 'Order sync is failing'
    detail = `${operatorErrorText(toErrorInfo(errors[0]))}${since}`
    title = 'Sync failing'
  } else if (i.attention > 0) {
    level = 'attention'
    headline = attention
    title = `${n(i.attention)} need${i.attention === 1 ? 's' : ''} attention`
  } else if (stalled > 0 || chains.length) {
    // Stalled orders or an unwell chain need the operator even when no status says so.
    level = 'attention'
    headline = stalled > 0 ? stalledLine : (chains[0] as string)
    title = stalled > 0 ? `${n(stalled)} stalled` : 'Chain trouble'
  } else if (i.inProgress > 0) {
    level = 'progress'
    headline = progress
    title = `${n(i.inProgress)} in progress`
  } else {
    level = 'idle'
    // A known gap is never presented as all clear.
    headline = i.gaps?.length ? 'Orders may be missing' : 'Nothing needs you'
    title = ''
  }
  // The tooltip says everything the icon cannot, most pressing first.
  const rest = [
    level !== 'attention' && i.attention > 0 ? attention : null,
    stalled > 0 && headline !== stalledLine ? stalledLine : null,
    ...chains.filter((c) => c !== headline),
    level !== 'progress' && i.inProgress > 0 ? progress : null
  ].filter((x): x is string => x !== null)
  if (i.proof) rest.push(i.proof)
  else if (i.gaps?.length) rest.push(i.gaps.length === 1 ? (i.gaps[0] as string) : `${i.gaps.length} known gaps in the orders`)
  const tooltip = ['Rampdesk', headline, ...rest].join(' · ')
  return {
    level,
    icon: ICON[level],
    headline,
    detail,
    attention: i.attention,
    inProgress: i.inProgress,
    title,
    tooltip,
    gaps: [...(i.gaps ?? [])]
  }
}

function formatCount(x: number, locale = 'en-US'): string {
  try {
    return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(x)
  } catch {
    return new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }).format(x)
  }
}

export type TrayTheme = 'light' | 'dark'

/**
 * The file of one icon variant under resources/tray/ (the @2x file beside it is the one
 * Electron picks on a high-density screen). Light is for a light menu bar or panel (a
 * dark glyph), dark for a dark one.
 */
export function trayIconFile(icon: TrayIcon, theme: TrayTheme, scale: 1 | 2 = 1): string {
  return `tray-${icon}-${theme}${scale === 2 ? '@2x' : ''}.png`
}
