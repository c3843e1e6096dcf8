// What a Team profile shows of the orders' coverage while its hub cannot be reached: the
// coverage the hub last reported (its scopes, readings and gaps, as they were), with a gap
// of its own first saying that whether every order is here cannot be known until the hub
// answers. Nothing the hub last said is dropped (nothing silent); pure, so unit-tested.
import type { Coverage, CoverageGap } from '../../shared/ipc/contract'

export interface OfflineInputs {
  /** The hub refused this desktop's token, rather than not answering. */
  refused: boolean
  /** When the line to the hub was lost (null: never up since this desktop started). */
  since: number | null
  /** The coverage the hub last reported (null: none yet). */
  last: Coverage | null
}

/** HH:MM UTC of an epoch-ms time, as gap texts name it. */
export const utcMinute = (ms: number): string => `${new Date(ms).toISOString().slice(11, 16)} UTC`

/** The gap a hub out of reach is: the first of the list, with how many of the hub's own it last reported. */
export function hubGap(o: OfflineInputs): CoverageGap {
  const known = o.last?.gaps.filter((g) => g.kind !== 'hub').length ?? null
  const last =
    known === null
      ? 'the hub has reported no coverage to this desktop yet'
      : known === 0
        ? 'the hub last reported no gaps'
        : `the hub last reported ${known === 1 ? '1 gap' : `${known} gaps`} (below)`
  return {
    kind: 'hub',
    text:
      `${o.refused ? 'The team hub has refused this desktop' : 'Team hub unreachable'}${o.since !== null ? ` since ${utcMinute(o.since)}` : ''}: ` +
      `whether every order is here cannot be known until it answers; ${last}`,
    type: null,
    fiatType: null
  }
}

/** The last coverage the hub reported, with the hub's gap first; undefined when it never reported one. */
export function offlineCoverage(o: OfflineInputs): Coverage | undefined {
  if (!o.last) return undefined
  return { ...o.last, gaps: [hubGap(o), ...o.last.gaps.filter((g) => g.kind !== 'hub')] }
}

/** The tray's gaps offline: the hub's gap, then the last it reported. */
export function offlineGapTexts(o: OfflineInputs): string[] {
  return [hubGap(o).text, ...(o.last?.gaps.filter((g) => g.kind !== 'hub').map((g) => g.text) ?? [])]
}
