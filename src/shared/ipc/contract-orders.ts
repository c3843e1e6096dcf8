// Schemas of the contract's order actions that stand on their own (contract.ts re-exports
// them): what "Check now" found, and the names of CSV exports and their columns.
import { z } from 'zod'

const EpochMs = z.number().int().nonnegative()

/**
 * What asking the service about one order now found: its status (kept in the database as
 * a confirmation, unless this is a hub that follows another, whose leader keeps orders),
 * or that the service does not know the order.
 */
export const OrderCheck = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('status'),
    status: z.number().int(),
    /** The status held before the check (null: the order is not in the database). */
    previous: z.number().int().nullable(),
    at: EpochMs,
    kept: z.boolean()
  }),
  z.object({ kind: z.literal('unknown-order'), at: EpochMs })
])
export type OrderCheck = z.infer<typeof OrderCheck>

/** The CSV's column names: in words ("Customer pays"), or the API's camelCase names (`fiatAmount`), for scripts. */
export const ExportHeaders = z.enum(['words', 'api'])
export type ExportHeaders = z.infer<typeof ExportHeaders>

/** A CSV export's file name (never a path): what the export folder holds and a window may ask to open. */
export const ExportFileName = z
  .string()
  .max(120)
  .regex(/^rampdesk-(onramp|offramp|orders)-[0-9T-]+Z\.csv$/, 'not the name of a Rampdesk export')
