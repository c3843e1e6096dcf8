// Orders as the operator sees them: the virtualized table over the local database,
// search and filters, the detail panel, CSV export; and a status change made through
// the sandbox's control API showing up in the table and in the tray view.
import { expect, test, type Page } from '@playwright/test'
import { statusInfo } from '../../src/shared/domain/status'
import { navigate, openView, shot, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp({ orders: 3000 })
})
test.afterAll(async () => {
  await e?.close()
})

async function total(page: Page): Promise<number> {
  const t = await page.getByTestId('orders-total').textContent()
  return Number((t ?? '0').replace(/[^\d]/g, ''))
}

async function waitForOrders(page: Page, atLeast = 1): Promise<void> {
  await expect.poll(() => total(page), { timeout: 45_000 }).toBeGreaterThanOrEqual(atLeast)
}

async function search(page: Page, text: string): Promise<void> {
  await page.getByRole('searchbox', { name: 'Search' }).fill(text)
}

test('the table renders only the rows in view and fetches pages as it scrolls', async ({ page }) => {
  await openView(page, e, 'orders')
  await waitForOrders(page, 500)
  // The first sync may still be bringing pages of 500: the total read must be its last, or
  // the bottom row looked for is no longer the bottom one.
  const monitor = () => e.app.services.session().monitor
  await expect
    .poll(
      () =>
        monitor()
          .states()
          .every((s) => s.lastSuccessAt !== null && !s.running),
      { timeout: 60_000 }
    )
    .toBe(true)
  await expect.poll(async () => (await total(page)) === e.app.services.session().store.orders.count(1), { timeout: 15_000 }).toBe(true)
  const n = await total(page)
  const table = page.getByRole('table', { name: 'Onramp orders' })
  await expect(table).toHaveAttribute('aria-rowcount', String(n + 1))
  const rendered = await table.locator('tbody tr[data-order]').count()
  expect(rendered).toBeGreaterThan(5)
  expect(rendered).toBeLessThan(100)
  await shot(page, 'orders')

  await page.getByTestId('orders-scroller').evaluate((el) => (el.scrollTop = el.scrollHeight))
  await expect(table.locator(`tbody tr[aria-rowindex="${n + 1}"][data-order]`)).toBeVisible({ timeout: 15_000 })
  expect(await table.locator('tbody tr[data-order]').count()).toBeLessThan(100)
})

test('scrolled, the rows keep their order for assistive technology; the table is one tab stop', async ({ page }) => {
  await openView(page, e, 'orders')
  await waitForOrders(page, 500)
  const table = page.getByRole('table', { name: 'Onramp orders' })
  const scroller = page.getByTestId('orders-scroller')
  // Scroll by a number of rows that is not a multiple of the row pool, so the nodes that
  // took the rows scrolled in are not in row order in the document.
  await scroller.evaluate((el) => (el.scrollTop = 32 * 137))
  await expect(table.locator('tbody tr[aria-rowindex="150"][data-order]')).toBeVisible()
  await expect(table.locator('tr.loading')).toHaveCount(0)
  const domOrder = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('aria-rowindex'))))
  expect(domOrder).not.toEqual([...domOrder].sort((a, b) => a - b))

  // Chrome's accessibility tree (what a screen reader reads) has them in row order.
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Accessibility.enable')
  const { nodes } = await cdp.send('Accessibility.getFullAXTree')
  const byId = new Map(nodes.map((n) => [n.nodeId, n]))
  const groups = nodes.filter((n) => n.role?.value === 'rowgroup').map((g) => (g.childIds ?? []).map((id) => byId.get(id)!))
  const body = groups.find((rows) => rows.length > 1)!
  const axOrder: number[] = []
  for (const row of body) {
    expect(row.role?.value).toBe('row')
    const { node } = await cdp.send('DOM.describeNode', { backendNodeId: row.backendDOMNodeId! })
    const attrs = node.attributes ?? []
    axOrder.push(Number(attrs[attrs.indexOf('aria-rowindex') + 1]))
  }
  expect(axOrder).toEqual([...domOrder].sort((a, b) => a - b))
  await cdp.detach()

  // One tab stop: tabbing from the search box reaches the row last chosen (else the first
  // row in view), arrows move between rows, and Tab leaves the table.
  const focusedRow = async () => {
    const row = table.locator('tbody tr:has(:focus)')
    return (await row.count()) ? Number(await row.getAttribute('aria-rowindex')) : 0
  }
  await page.getByRole('searchbox', { name: 'Search' }).focus()
  for (let i = 0; i < 20 && (await focusedRow()) === 0; i++) await page.keyboard.press('Tab')
  expect(await focusedRow()).toBe(139)
  await table.locator('tbody tr[aria-rowindex="141"] button.oid').click()
  await expect(page.getByTestId('order-detail')).toBeVisible()
  await page.getByRole('searchbox', { name: 'Search' }).focus()
  for (let i = 0; i < 20 && (await focusedRow()) === 0; i++) await page.keyboard.press('Tab')
  expect(await focusedRow()).toBe(141)
  await page.keyboard.press('ArrowDown')
  expect(await focusedRow()).toBe(142)
  await page.keyboard.press('Tab')
  expect(await focusedRow()).toBe(0)
  await page.keyboard.press('Shift+Tab')
  expect(await focusedRow()).toBe(142)

  // The focused row scrolled far away: its node now draws another order (or shows
  // "loading…" until that order's page arrives), so the focus is on the scroller, not on a
  // button naming an order the operator never chose, nor dropped to the page.
  await scroller.evaluate((el) => (el.scrollTop = 32 * 400))
  await expect(table.locator('tbody tr[aria-rowindex="410"][data-order]')).toBeVisible()
  await expect(scroller).toBeFocused()
  await table.locator('tbody tr[aria-rowindex="410"] button.oid').focus()
  await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight))
  const last = Number(await table.getAttribute('aria-rowcount'))
  await expect(table.locator(`tbody tr[aria-rowindex="${last}"][data-order]`)).toBeVisible()
  await expect(scroller).toBeFocused()
})

test('search finds an order by id and by merchant id; a status filter keeps only its group', async ({ page }) => {
  await openView(page, e, 'orders')
  await waitForOrders(page)
  const first = page.locator('tbody tr[data-order]').first()
  const id = await first.getAttribute('data-order')
  expect(id).toBeTruthy()
  const merchantId = (await first.locator('td[data-col="merchant"]').textContent())?.trim() ?? ''

  await search(page, String(id))
  await expect(page.locator(`tbody tr[data-order="${id}"]`)).toBeVisible()
  await expect.poll(() => total(page)).toBeLessThanOrEqual(3)
  if (merchantId && merchantId !== '—') {
    await search(page, merchantId)
    await expect(page.locator(`tbody tr[data-order="${id}"]`)).toBeVisible()
  }
  await search(page, '')
  await page.getByRole('combobox', { name: 'Status' }).selectOption('completed')
  const groups = () => page.locator('tbody tr[data-order]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-status'))))
  // Once the filtered rows are on screen, every one of them is in the group.
  await expect.poll(async () => [...new Set((await groups()).map((s) => statusInfo(1, s).group))]).toEqual(['completed'])
})

test('the detail panel shows every field in words and the timeline; keyboard moves between rows', async ({ page }) => {
  await openView(page, e, 'orders')
  await waitForOrders(page)
  const firstButton = page.locator('tbody tr[data-order] button.oid').first()
  const id = await page.locator('tbody tr[data-order]').first().getAttribute('data-order')
  await firstButton.click()
  const detail = page.getByTestId('order-detail')
  await expect(detail.getByRole('heading', { name: `Onramp order ${id}` })).toBeVisible()
  await expect(detail.getByRole('heading', { name: 'Timeline' })).toBeVisible()
  await expect(detail.getByTestId('order-fields').locator('[data-field="orderId"] dd')).toHaveText(String(id))
  await shot(page, 'order-detail')

  await firstButton.focus()
  await page.keyboard.press('ArrowDown')
  const second = await page.locator('tbody tr[data-order]').nth(1).getAttribute('data-order')
  await expect(detail.getByRole('heading', { name: `Onramp order ${second}` })).toBeVisible()
  await page.keyboard.press('Escape')
})

test('a status change made through the sandbox appears in the table and in the tray', async ({ page, context }) => {
  // A path with steps enough for the two moves below (a random one may time out at the first).
  const created = e.control.createOrder({ type: 1, fiatType: 1, hold: true, path: 'completed' })
  await openView(page, e, 'orders')
  await waitForOrders(page)
  await search(page, String(created.orderId))
  const row = page.locator(`tbody tr[data-order="${created.orderId}"]`)
  await expect(async () => {
    await page.getByRole('button', { name: 'Sync now' }).click()
    await expect(row).toBeVisible({ timeout: 3_000 })
  }).toPass({ timeout: 45_000 })
  await expect(row).toHaveAttribute('data-status', String(created.status))

  await row.getByRole('button', { name: new RegExp(`^Order ${created.orderId}(, watched)?, open details$`) }).click()
  const watch = page.getByTestId('watch-toggle')
  await watch.click()
  await expect(watch).toHaveText('Unwatch')
  // The row says so too (its star is drawn by CSS, so the name carries it).
  await expect(row.getByRole('button', { name: `Order ${created.orderId}, watched, open details` })).toBeVisible({ timeout: 15_000 })

  const moved = e.control.advanceOrder(created.orderId)
  expect(moved.status).not.toBe(created.status)
  await expect(async () => {
    await page.getByRole('button', { name: 'Sync now' }).click()
    await expect(row).toHaveAttribute('data-status', String(moved.status), { timeout: 3_000 })
  }).toPass({ timeout: 60_000 })
  await expect(row).toContainText(statusInfo(1, moved.status).short)
  await expect(page.getByTestId('timeline')).toContainText(statusInfo(1, moved.status).label)

  // Pin a price for the tray, as the operator does from the tickers view.
  await navigate(page, 'tickers')
  const firstCoin = page.locator('tbody tr[data-coin]').first()
  await expect(firstCoin).toBeVisible({ timeout: 15_000 })
  const pinnedCoin = await firstCoin.getAttribute('data-coin')
  const pin = firstCoin.getByRole('button', { name: /^Pin .* to the tray$/ })
  if ((await pin.getAttribute('aria-pressed')) !== 'true') await pin.click()
  await expect(pin).toHaveAttribute('aria-pressed', 'true')
  await navigate(page, 'orders')
  await search(page, String(created.orderId))

  const tray = await context.newPage()
  await tray.setViewportSize({ width: 420, height: 560 })
  await openView(tray, e, 'tray')
  await expect(tray.getByRole('table', { name: 'Pinned prices' }).locator(`tr[data-coin="${pinnedCoin}"]`)).toBeVisible({ timeout: 15_000 })
  const trayRow = tray.getByTestId('tray-orders').locator(`li[data-order="${created.orderId}"]`)
  await expect(trayRow).toHaveAttribute('data-status', String(moved.status), { timeout: 15_000 })

  const again = e.control.advanceOrder(created.orderId)
  await expect(async () => {
    await page.getByRole('button', { name: 'Sync now' }).click()
    await expect(trayRow).toHaveAttribute('data-status', String(again.status), { timeout: 3_000 })
  }).toPass({ timeout: 60_000 })
  await expect(trayRow).toContainText(statusInfo(1, again.status).short)
  await shot(tray, 'tray')
  await tray.getByRole('button', { name: 'Open Rampdesk' }).click()
})

test('CSV export writes the filtered rows and reports where', async ({ page }) => {
  await openView(page, e, 'orders')
  await waitForOrders(page)
  await page.getByRole('tab', { name: 'Offramp' }).click()
  await waitForOrders(page)
  const n = await total(page)
  await page.getByRole('button', { name: 'Export CSV' }).click()
  // Counted as orders, in the operator's locale (the harness's browser: en-US).
  await expect(page.getByTestId('export-result')).toContainText(`Exported ${n.toLocaleString('en-US')} ${n === 1 ? 'order' : 'orders'}`, {
    timeout: 30_000
  })
})

test('the transaction hash opens in the explorer through main', async ({ page }) => {
  const { rows } = await e.app.services.handlers['orders:query']({
    filter: { type: 1, statusGroup: 'completed' },
    sort: 'updatedAt:desc',
    offset: 0,
    limit: 200
  })
  const withHash = rows.find((r) => r.transactionHash)
  test.skip(!withHash, 'no synced order with a transaction hash')
  if (!withHash?.transactionHash) return
  await openView(page, e, 'orders')
  await waitForOrders(page)
  await search(page, String(withHash.orderId))
  await page.getByRole('button', { name: new RegExp(`^Order ${withHash.orderId}(, watched)?, open details$`) }).click()
  const detail = page.getByTestId('order-detail')
  await expect(detail.locator('[data-field="transactionHash"]')).toContainText(withHash.transactionHash)
  await detail.getByRole('link', { name: /Explorer/ }).click()
  await expect.poll(() => e.app.services.openedUrls.some((u) => u.includes(withHash.transactionHash ?? '?'))).toBe(true)
})
