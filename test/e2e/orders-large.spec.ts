// The orders table over a large local database (the sandbox seeded with 100,000
// orders, synced into SQLite): the DOM holds only the rows in view wherever the
// operator scrolls, and rows arrive for the far end of the table as well as the top.
import { expect, test, type Page } from '@playwright/test'
import { openView, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  test.setTimeout(120_000)
  e = await startApp({ orders: 100_000, seed: 3 })
})
test.afterAll(async () => {
  await e?.close()
})

async function total(page: Page): Promise<number> {
  const t = await page.getByTestId('orders-total').textContent()
  return Number((t ?? '0').replace(/[^\d]/g, ''))
}

/**
 * Opens the orders view once the first onramp sync has finished, the table showing all it
 * synced; returns that count. Both types share the 100,000: every fiat's scope is found by
 * its probe first (this file is about the table, not the sync's speed, which bench/ and
 * the monitor's integration test measure).
 */
async function openSynced(page: Page): Promise<number> {
  await openView(page, e, 'orders')
  const h = e.app.services.handlers
  await expect
    .poll(async () => (await h['sync:state']({})).states.filter((s) => s.type === 1).every((s) => s.lastSuccessAt !== null && !s.running), {
      timeout: 240_000,
      intervals: [2_000]
    })
    .toBe(true)
  const synced = (await h['orders:query']({ filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 1 })).total
  expect(synced).toBeGreaterThan(40_000)
  await expect.poll(() => total(page), { timeout: 15_000 }).toBeGreaterThanOrEqual(synced)
  return synced
}

test('100,000 orders: bounded DOM at the top, the middle and the end', async ({ page }) => {
  test.setTimeout(300_000)
  await openSynced(page)

  const table = page.getByRole('table', { name: 'Onramp orders' })
  const scroller = page.getByTestId('orders-scroller')
  for (const at of [0, 0.5, 1]) {
    await scroller.evaluate((el, f) => (el.scrollTop = (el.scrollHeight - el.clientHeight) * f), at)
    const rows = table.locator('tbody tr[data-order]')
    await expect(rows.first()).toBeVisible({ timeout: 15_000 })
    // Live orders keep arriving and re-render the window, so read it until it settles:
    // no placeholder rows, a bounded number of rows, and rows around the scrolled-to place.
    await expect
      .poll(
        async () => {
          if ((await table.locator('tr.loading').count()) > 0) return 'loading rows'
          // The generator keeps adding orders, so read the size the table has now.
          const n = Number(await table.getAttribute('aria-rowcount')) - 1
          const expected = Math.max(2, Math.round(at * n) + 1)
          const indices = await rows.evaluateAll((els) => els.map((r) => Number(r.getAttribute('aria-rowindex'))))
          if (indices.length <= 5 || indices.length >= 100) return `${indices.length} rows in the DOM`
          if (Math.min(...indices) > expected + 50 || Math.max(...indices) < expected - 50)
            return `rows ${Math.min(...indices)}-${Math.max(...indices)} around ${expected}`
          return 'ok'
        },
        { timeout: 15_000 }
      )
      .toBe('ok')
  }
  const last = Number(await table.getAttribute('aria-rowcount'))
  await expect(table.locator(`tbody tr[aria-rowindex="${last}"]`)).toBeVisible()
})

test('100,000 orders: only the rows in view and a few either side are in the DOM, each fixed-height and contained', async ({ page }) => {
  test.setTimeout(420_000)
  // Tens of thousands of rows are enough to scroll through; the sync may go on meanwhile.
  await openView(page, e, 'orders')
  await expect.poll(() => total(page), { timeout: 360_000, intervals: [2_000] }).toBeGreaterThan(40_000)
  const scroller = page.getByTestId('orders-scroller')
  const table = page.getByRole('table', { name: 'Onramp orders' })
  for (const at of [0, 0.37, 1]) {
    await scroller.evaluate((el, f) => (el.scrollTop = (el.scrollHeight - el.clientHeight) * f), at)
    await expect(table.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 15_000 })
    // Once the rows beyond the view are drawn too (after the frame that answered), read
    // every row: how many there are for the scroller's height, and how each is laid out.
    await expect
      .poll(
        () =>
          scroller.evaluate((sc) => {
            const rows = [...sc.querySelectorAll('tbody tr')]
            const win = sc.ownerDocument.defaultView!
            const inView = Math.ceil(sc.clientHeight / 32)
            // The rows in view, one cut at each edge, and 5 either side (OrderTable's OVERSCAN).
            const most = inView + 2 * 5 + 1
            if (rows.length < inView) return `${rows.length} rows for ${inView} in view`
            if (rows.length > most) return `${rows.length} rows in the DOM for ${inView} in view (at most ${most})`
            const view = sc.getBoundingClientRect()
            for (const r of rows) {
              const st = win.getComputedStyle(r)
              const box = r.getBoundingClientRect()
              if (st.contain !== 'strict') return `row ${r.getAttribute('aria-rowindex')}: contain ${st.contain}`
              if (st.height !== '32px' || box.height !== 32) return `row ${r.getAttribute('aria-rowindex')}: ${box.height} px high`
              if (st.contentVisibility !== 'auto')
                return `row ${r.getAttribute('aria-rowindex')}: content-visibility ${st.contentVisibility}`
              // No row far off screen: all lie within the view and the few rows kept beside it
              // (all of them on one side at the top and the end of the table), the row under
              // the header and the one cut at the view's edge counted.
              const beyond = (most - inView + 2) * 32
              if (box.bottom < view.top - beyond || box.top > view.bottom + beyond)
                return `row ${r.getAttribute('aria-rowindex')} at ${Math.round(box.top - view.top)} px, off screen`
            }
            return 'ok'
          }),
        { timeout: 15_000 }
      )
      .toBe('ok')
  }
})
