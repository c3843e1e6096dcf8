// The activity namespace: what changed while the operator was away, for the summary shown
// when they open the app or come back from idle ("Since you were here (yesterday 18:04): 2
// orders failed, 1 stalled, Ana claimed order 123, 3 notes"), and the moment they last
// looked, kept by each desktop per profile so it survives restarts.
import { z } from 'zod'
import { ch, EpochMs, OrderRef } from './primitives'

/** At most this many items are listed; the rest are counted ("and 12 more"). */
export const ACTIVITY_MAX_ITEMS = 50
/** How far back a summary may reach: a desktop away longer is told about the last 30 days. */
export const ACTIVITY_MAX_DAYS = 30

export const ActivityInput = z.object({ since: EpochMs }).strict()
export type ActivityInput = z.infer<typeof ActivityInput>

/**
 * One thing that happened. `kind` is open-ended: 'failed', 'claim', 'note', or the kind of
 * an alert raised meanwhile ('stalled', 'chain', and any kind the alerts gain later), so a
 * view lists every kind by its text without knowing it.
 */
export const ActivityItem = z.object({
  kind: z.string(),
  /** The order it is about (its link), or null for what concerns several (a chain's alert). */
  order: OrderRef.nullable(),
  at: EpochMs,
  /** In the operator's words: "Order 123 (offramp) failed: Refunded". */
  text: z.string()
})
export type ActivityItem = z.infer<typeof ActivityItem>

/** One part of the summary's headline: "2 orders failed", "Ana claimed order 123", "3 notes". */
export const ActivityGroup = z.object({ kind: z.string(), count: z.number().int().nonnegative(), text: z.string() })
export type ActivityGroup = z.infer<typeof ActivityGroup>

export const ActivitySummary = z.object({
  /** From when the summary counts (the input, or ACTIVITY_MAX_DAYS back from `at` if earlier). */
  since: EpochMs,
  /** Until when: dismissing the summary marks this as looked at, so nothing after it is lost. */
  at: EpochMs,
  /** Empty: nothing to say, and no summary is shown. */
  groups: z.array(ActivityGroup),
  /** Newest first, at most ACTIVITY_MAX_ITEMS. */
  items: z.array(ActivityItem),
  /** Items left out of `items` ("and N more"). */
  more: z.number().int().nonnegative()
})
export type ActivitySummary = z.infer<typeof ActivitySummary>

export const LastLooked = z.object({ at: EpochMs.nullable() })
export type LastLooked = z.infer<typeof LastLooked>

export const activityChannels = {
  'activity:since': ch(
    ActivityInput,
    ActivitySummary,
    'What changed since a moment: orders failed, alerts raised, claims and notes by other operators, each with its words'
  ),
  'activity:lastLooked': ch(
    z.object({}).strict(),
    LastLooked,
    'When the operator last looked at this profile (null: never on this desktop)'
  ),
  'activity:seen': ch(
    z.object({ at: EpochMs.optional() }).strict(),
    LastLooked,
    'The operator has looked until `at` (now if absent); never moves back'
  )
} as const
