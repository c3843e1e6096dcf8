// The leader applies every kept delivery's order to the orders it syncs: those any hub kept
// (a follower keeps and the leader applies), those the spool handed to the store later, and
// its own when it stopped before marking them. Applying one twice changes nothing: the
// monitor never moves an order back to an older record.
import { parseRecord, type WebhookRecord } from '../../main/webhooks/delivery-verdict'
import type { KeptStore } from './kept-store'

export async function applyKept(
  store: Pick<KeptStore, 'unapplied' | 'markApplied'>,
  apply: (w: WebhookRecord) => unknown,
  onBad: (message: string) => void,
  batch = 100
): Promise<number> {
  let total = 0
  for (;;) {
    const rows = await store.unapplied(batch)
    for (const row of rows) {
      let parsed: ReturnType<typeof parseRecord> | null = null
      try {
        parsed = parseRecord(JSON.parse(row.body.toString('utf8')) as Record<string, unknown>)
      } catch (e) {
        onBad(`a kept webhook delivery is not JSON (${(e as Error).message}): not applied`)
      }
      if (parsed?.ok) apply(parsed.value)
      else if (parsed) onBad(`a kept webhook delivery could not be read as an order here: ${parsed.error}`)
    }
    // Not marked: this hub no longer leads, and the one that does applies them.
    if (!(await store.markApplied(rows.map((r) => r.id)))) return total
    total += rows.length
    if (rows.length < batch) return total
  }
}
