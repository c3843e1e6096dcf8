// The summary an operator is shown when they come back: what changed between the moment they
// last looked and now, in their words. Pure over what the store and the alerts hold, so the
// edges (just before, at, just after the last look) are unit-tested with a fixed clock.
// Alerts are listed by their kind and their own text, so a kind the alerts gain later shows
// up here without a change; the headline names the kinds it knows in words and counts any
// other by its name.
import type { Alert, ActivityGroup, ActivityItem, ActivitySummary, OrderRef } from '../../shared/ipc/contract'
import { ACTIVITY_MAX_DAYS, ACTIVITY_MAX_ITEMS } from '../../shared/ipc/contract'
import { counted, type Noun } from '../../shared/domain/plural'
import { orderKindLabel, statusInfo } from '../../shared/domain/status'
import type { FailedChange, HandlingRecord } from '../store/activity-reads'

export interface ActivityFacts {
  since: number
  at: number
  /** The operator asking: "you" in a hand-over to them. */
  me: string
  failed: readonly FailedChange[]
  /** By others only (activity-reads.ts). */
  handling: readonly HandlingRecord[]
  /** The alerts standing now. */
  alerts: readonly Alert[]
}

/** The earliest moment a summary reaches back to from `at`. */
export const earliestSince = (at: number): number => at - ACTIVITY_MAX_DAYS * 24 * 60 * 60_000

/** When an alert was raised: a stalled order at its threshold, any other alert when first seen. */
export function raisedAt(a: Alert): number {
  return 'thresholdMinutes' in a ? a.since + a.thresholdMinutes * 60_000 : a.since
}

/** The one order an alert is about, where it is about one. */
function alertOrder(a: Alert): OrderRef | null {
  if ('order' in a) return a.order
  if ('orders' in a && a.orders.length === 1) return a.orders[0]!
  return null
}

/** The headline's words for the alert kinds it knows; any other is counted by its name. */
const ALERT_NOUNS: Readonly<Record<string, Noun>> = {
  stalled: ['stalled', 'stalled'],
  chain: 'network warning',
  unacknowledged: ['completed unacknowledged', 'completed unacknowledged']
}

const NOTE_EXCERPT = 80
const excerpt = (t: string): string => (t.length > NOTE_EXCERPT ? `${t.slice(0, NOTE_EXCERPT - 1).trimEnd()}…` : t)
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

function handlingText(h: HandlingRecord, me: string): string {
  const order = `order ${h.orderId}`
  switch (h.kind) {
    case 'claim':
      return `${h.actor} claimed ${order}`
    case 'release':
      return `${h.actor} released ${order}`
    case 'hand':
      return `${h.actor} handed ${order} to ${h.handler && sameName(h.handler, me) ? 'you' : (h.handler ?? 'someone')}`
    case 'note':
      return `${h.actor} noted on ${order}: “${excerpt(h.text ?? '')}”`
  }
}

export function summarizeActivity(f: ActivityFacts): ActivitySummary {
  const since = Math.max(f.since, earliestSince(f.at))
  const within = (t: number) => t > since && t <= f.at
  const items: ActivityItem[] = []
  const groups: ActivityGroup[] = []

  const failed = f.failed.filter((x) => within(x.at))
  for (const x of failed)
    items.push({
      kind: 'failed',
      order: { type: x.type, orderId: x.orderId },
      at: x.at,
      text: `Order ${x.orderId} (${orderKindLabel(x.type, 'lowercase')}) failed: ${statusInfo(x.type, x.status).label}`
    })
  if (failed.length) groups.push({ kind: 'failed', count: failed.length, text: `${counted(failed.length, 'order')} failed` })

  const byKind = new Map<string, number>()
  for (const a of f.alerts) {
    const at = raisedAt(a)
    if (!within(at)) continue
    byKind.set(a.kind, (byKind.get(a.kind) ?? 0) + 1)
    const order = alertOrder(a)
    items.push({ kind: a.kind, order, at, text: order ? `Order ${order.orderId}: ${a.text}` : a.text })
  }
  for (const [kind, n] of byKind) groups.push({ kind, count: n, text: counted(n, ALERT_NOUNS[kind] ?? [kind, kind]) })

  const handling = f.handling.filter((h) => within(h.at) && !sameName(h.actor, f.me))
  const claims = handling.filter((h) => h.kind !== 'note')
  const notes = handling.filter((h) => h.kind === 'note')
  for (const h of handling)
    items.push({
      kind: h.kind === 'note' ? 'note' : 'claim',
      order: { type: h.type, orderId: h.orderId },
      at: h.at,
      text: handlingText(h, f.me)
    })
  // A claim or two is named ("Ana claimed order 123"), in the order they happened; more are counted.
  if (claims.length > 2)
    groups.push({ kind: 'claim', count: claims.length, text: counted(claims.length, ['claim or hand-over', 'claims and hand-overs']) })
  else for (const h of [...claims].reverse()) groups.push({ kind: 'claim', count: 1, text: handlingText(h, f.me) })
  if (notes.length) groups.push({ kind: 'note', count: notes.length, text: counted(notes.length, 'note') })

  items.sort((a, b) => b.at - a.at)
  return { since, at: f.at, groups, items: items.slice(0, ACTIVITY_MAX_ITEMS), more: Math.max(0, items.length - ACTIVITY_MAX_ITEMS) }
}
