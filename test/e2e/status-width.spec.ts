// Every status label of the status table fits the orders table's status column at the
// window's minimum size (960x600), measured in the real renderer: each label is drawn in
// a real status cell, in the column's own font and pill, and must not be cut (no ellipsis,
// nothing past the cell's padding), with the table alone and with an order's detail beside it.
import { expect, test, type Page } from '@playwright/test'
import { openView, startApp, type E2eApp } from './harness'
import { STATUS_TABLE, statusInfo } from '../../src/shared/domain/status'

let e: E2eApp

test.use({ viewport: { width: 960, height: 600 } })

test.beforeAll(async () => {
  e = await startApp({ orders: 300 })
})
test.afterAll(async () => {
  await e?.close()
})

/** Every label the table can show: each type's, and unknown statuses as the service may send them. */
const LABELS = [
  ...new Set([
    ...STATUS_TABLE[1].map((r) => r.label),
    ...STATUS_TABLE[2].map((r) => r.label),
    ...[77, -9, 123].map((s) => statusInfo(1, s).label)
  ])
]

/**
 * Draws each label in the first row's status pill and answers those that do not fit: cut
 * with an ellipsis, or reaching past the cell's content box. Plain JavaScript in a string:
 * the Node side is compiled without the DOM's types.
 */
const MEASURE = `(labels) => {
  const cell = document.querySelector('tbody tr[data-order] td.st')
  const pill = cell?.querySelector('.pill')
  if (!cell || !pill) return { error: 'no status cell' }
  const kept = pill.textContent
  const s = getComputedStyle(cell)
  const cellRight = cell.getBoundingClientRect().right - parseFloat(s.paddingRight)
  const out = []
  for (const label of labels) {
    pill.textContent = label
    const cut = pill.scrollWidth > pill.clientWidth + 0.5
    const past = pill.getBoundingClientRect().right > cellRight + 0.5
    if (cut || past) out.push(label + ' (' + pill.scrollWidth + ' px in ' + Math.floor(cellRight - pill.getBoundingClientRect().left) + ')')
  }
  pill.textContent = kept
  return { error: null, font: getComputedStyle(pill).font, width: cell.getBoundingClientRect().width, cut: out }
}`

async function unfit(page: Page, labels: string[]): Promise<{ error: string | null; font: string; width: number; cut: string[] }> {
  return page.evaluate(`(${MEASURE})(${JSON.stringify(labels)})`)
}

test('every status label fits the status column at 960x600, with and without the detail', async ({ page }) => {
  await openView(page, e, 'orders')
  await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
  expect(LABELS.length).toBeGreaterThan(20)

  const alone = await unfit(page, LABELS)
  expect(alone.error).toBeNull()
  // The pill's font, as the column draws it (not a default the measure would invent).
  expect(alone.font).toMatch(/600 12px/)
  expect(alone.cut, `labels cut in a ${alone.width} px status column`).toEqual([])

  await page.locator('tbody tr[data-order] button.oid').first().click()
  await expect(page.getByTestId('order-story')).toBeVisible()
  const beside = await unfit(page, LABELS)
  expect(beside.cut, `labels cut in a ${beside.width} px status column beside the detail`).toEqual([])

  // The check can fail: a label longer than the column is reported.
  const long = 'Paying out to the alternate bank account'
  expect((await unfit(page, [long])).cut).toEqual([expect.stringContaining(long)])

  // And the rows as drawn: no status cell cuts its label.
  const cutRows = await page
    .locator('tbody tr[data-order] td.st .pill')
    .evaluateAll((pills) => pills.filter((p) => p.scrollWidth > p.clientWidth + 0.5).map((p) => p.textContent))
  expect(cutRows).toEqual([])
})
