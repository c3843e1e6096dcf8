// An operator's day on the orders view at the laptop size (1280x800), keyboard included:
// wallets readable and copied whole, a search for what a customer reads out (the last
// characters of a wallet, a reference typed on the wrong tab), rows that stay where they
// are while the operator is on them (updates announced and shown on request, the
// selection kept), Escape closing the detail, the focus kept after Watch, and the detail
// in words.
import { expect, test, type Page } from '@playwright/test'
import { openView, startApp, type E2eApp } from './harness'

let e: E2eApp

test.use({ viewport: { width: 1280, height: 800 } })

test.beforeAll(async () => {
  e = await startApp({ orders: 3000 })
})
test.afterAll(async () => {
  await e?.close()
})

async function ready(page: Page): Promise<void> {
  await openView(page, e, 'orders')
  await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 45_000 })
}

/** The page's clipboard (the Node side has no DOM types). */
type Clip = { navigator: { clipboard: { readText(): Promise<string>; writeText(t: string): Promise<void> } } }
const clipboard = (page: Page): Promise<string> => page.evaluate(() => (globalThis as unknown as Clip).navigator.clipboard.readText())

const rowIds = (page: Page) =>
  page.locator('tbody tr[data-order]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-order'))))
/** The orders of the rows in view, top to bottom. */
async function shownOrder(page: Page): Promise<number[]> {
  const rows = await page
    .locator('tbody tr[data-order]')
    .evaluateAll((els) => els.map((r) => [Number(r.getAttribute('aria-rowindex')), Number(r.getAttribute('data-order'))] as const))
  return rows
    .sort((a, b) => a[0] - b[0])
    .slice(0, 12)
    .map((r) => r[1])
}

test('a wallet is cut in the middle to its column, whole in its title and when copied', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await ready(page)
  const { rows } = await e.app.services.handlers['orders:query']({ filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 5 })
  const order = rows.find((r) => r.walletAddress && r.walletAddress.length > 30)!
  const cell = page.locator(`tbody tr[data-order="${order.orderId}"] td[data-wallet]`)
  await expect(cell).toHaveAttribute('title', order.walletAddress!)
  const text = (await cell.locator('.mono').textContent())!
  expect(text).toContain('…')
  expect(order.walletAddress!.startsWith(text.split('…')[0]!)).toBe(true)
  expect(order.walletAddress!.endsWith(text.split('…')[1]!)).toBe(true)
  expect((await cell.boundingBox())!.width).toBeGreaterThanOrEqual(140)

  await cell.getByRole('button', { name: `Copy wallet ${order.walletAddress}` }).click()
  expect(await clipboard(page)).toBe(order.walletAddress)

  // Ctrl+C on the order's row (the keyboard way) copies its whole wallet too.
  await page.evaluate(() => (globalThis as unknown as Clip).navigator.clipboard.writeText(''))
  await page.locator(`tbody tr[data-order="${order.orderId}"] button.oid`).focus()
  await page.keyboard.press('Control+C')
  await expect.poll(() => clipboard(page)).toBe(order.walletAddress)
})

test('search finds the last characters a customer reads out, and counts the matches on the other tab', async ({ page }) => {
  await ready(page)
  const h = e.app.services.handlers
  const on = (await h['orders:query']({ filter: { type: 1 }, sort: 'updatedAt:desc', offset: 40, limit: 1 })).rows[0]!
  const box = page.getByRole('searchbox', { name: 'Search' })
  // The last six characters of a wallet, typed in capitals.
  await box.focus()
  await page.keyboard.type(on.walletAddress!.slice(-6).toUpperCase())
  await expect(page.locator(`tbody tr[data-order="${on.orderId}"]`)).toBeVisible()

  // An offramp order's reference typed on the Onramp tab: the other tab says it has it.
  const off = (await h['orders:query']({ filter: { type: 2 }, sort: 'updatedAt:desc', offset: 7, limit: 1 })).rows[0]!
  const needle = off.merchantRecognitionId!.slice(-7)
  const inOnramp = (await h['orders:query']({ filter: { type: 1, search: needle }, sort: 'updatedAt:desc', offset: 0, limit: 1 })).total
  const inOfframp = (await h['orders:query']({ filter: { type: 2, search: needle }, sort: 'updatedAt:desc', offset: 0, limit: 1 })).total
  await box.fill(needle)
  const other = page.getByTestId('other-type-matches')
  await expect(other).toHaveText(`${inOfframp} ${inOfframp === 1 ? 'match' : 'matches'} in Offramp`)
  if (inOnramp === 0) await expect(page.getByText('No onramp orders match.')).toBeVisible()
  // By keyboard: Tab to it, Enter.
  await other.focus()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('tab', { name: 'Offramp' })).toHaveAttribute('aria-selected', 'true')
  await expect(box).toHaveValue(needle)
  await expect(page.locator(`tbody tr[data-order="${off.orderId}"]`)).toBeVisible()
  await expect(page.getByTestId('other-type-matches')).toHaveCount(inOnramp > 0 ? 1 : 0)
})

test('rows stay where they are while an order is open; updates are announced and shown on request, the order still selected', async ({
  page
}) => {
  await ready(page)
  const before = await shownOrder(page)
  const chosen = before[3]!
  // The operator opens the fourth order, then arrows to the fifth: the detail follows.
  await page.locator(`tbody tr[data-order="${chosen}"] button.oid`).click()
  await expect(page.getByTestId('order-detail').getByRole('heading', { name: `Onramp order ${chosen}` })).toBeVisible()

  // New orders arrive and a sync brings them in while the operator is on the table.
  for (let i = 0; i < 3; i++) e.control.createOrder({ type: 1, fiatType: 1 })
  await e.app.services.session().monitor.syncNow()
  const announce = page.getByTestId('orders-updates')
  await expect(announce).toHaveText(/^(\d+ updates?|New orders synced) — show$/, { timeout: 15_000 })
  // Nothing moved: the same orders in the same rows, the chosen one still selected.
  await page.waitForTimeout(800)
  expect(await shownOrder(page)).toEqual(before)
  await expect(page.locator('tbody tr.sel')).toHaveAttribute('data-order', String(chosen))

  // Arrowing visits the next order of what the operator sees, not of a re-sorted table.
  await page.locator(`tbody tr[data-order="${chosen}"] button.oid`).focus()
  await page.keyboard.press('ArrowDown')
  await expect(page.getByTestId('order-detail').getByRole('heading', { name: `Onramp order ${before[4]}` })).toBeVisible()
  await page.keyboard.press('ArrowUp')
  await expect(page.getByTestId('order-detail').getByRole('heading', { name: `Onramp order ${chosen}` })).toBeVisible()

  // Shown on request: the new orders come in at the top, the chosen order stays selected and focused.
  await announce.click()
  await expect(announce).toHaveCount(0)
  await expect.poll(async () => (await shownOrder(page))[0], { timeout: 15_000 }).not.toBe(before[0])
  await expect(page.locator('tbody tr.sel')).toHaveAttribute('data-order', String(chosen))
  await expect(page.getByTestId('order-detail').getByRole('heading', { name: `Onramp order ${chosen}` })).toBeVisible()
})

test('updates apply by themselves once the operator leaves the table', async ({ page }) => {
  await ready(page)
  const table = page.getByTestId('orders-scroller')
  await table.hover()
  const top = (await shownOrder(page))[0]
  const created = e.control.createOrder({ type: 1, fiatType: 1 })
  await e.app.services.session().monitor.syncNow()
  await expect(page.getByTestId('orders-updates')).toBeVisible({ timeout: 15_000 })
  expect((await shownOrder(page))[0]).toBe(top)
  // The pointer goes to the filters: the rows take their new order.
  await page.getByRole('searchbox', { name: 'Search' }).hover()
  await expect(page.getByTestId('orders-updates')).toHaveCount(0)
  await expect.poll(async () => rowIds(page), { timeout: 15_000 }).toContain(created.orderId)
})

test('the detail in words, copy on what an operator copies; Escape closes it; the focus stays after Watch', async ({ page }) => {
  await ready(page)
  const config = await e.app.services.handlers['config:get']({})
  const first = page.locator('tbody tr[data-order]').first()
  const id = Number(await first.getAttribute('data-order'))
  const order = (await e.app.services.handlers['orders:get']({ type: 1, orderId: id }))!
  // Keyboard: Tab from the search box reaches the table; Enter opens the order.
  await page.getByRole('searchbox', { name: 'Search' }).focus()
  const oid = first.locator('button.oid')
  for (let i = 0; i < 15 && !(await oid.evaluate((b) => b.matches(':focus'))); i++) await page.keyboard.press('Tab')
  await page.keyboard.press('Enter')
  const detail = page.getByTestId('order-detail')
  await expect(detail.getByRole('heading', { name: `Onramp order ${id}` })).toBeVisible()

  const fields = detail.getByTestId('order-fields')
  const coin = config.coins.find((c) => c.id === order.row.coinId)!
  const chain = config.chains.find((c) => c.id === order.row.chainId)!
  await expect(fields.locator('[data-field="coinId"] dt')).toHaveText('Coin')
  await expect(fields.locator('[data-field="coinId"] dd')).toContainText(coin.code.toUpperCase())
  await expect(fields.locator('[data-field="chainId"] dt')).toHaveText('Network')
  await expect(fields.locator('[data-field="chainId"] dd')).toContainText(chain.symbol.toUpperCase())
  await expect(fields.locator('[data-field="fiatType"] dd')).toHaveText('INR')
  // Amounts grouped as the locale writes them, every decimal kept, with their unit.
  await expect(fields.locator('[data-field="fiatAmount"] dd')).toHaveText(/^\d{1,3}(,\d{3})*\.\d{2,} INR\s*$/)
  await expect(fields).not.toContainText('coinId')
  await expect(fields.getByRole('button', { name: 'Copy wallet' })).toBeVisible()
  if (order.row.merchantRecognitionId) await expect(fields.getByRole('button', { name: 'Copy merchant reference' })).toBeVisible()
  if (order.row.transactionHash) await expect(fields.getByRole('button', { name: 'Copy transaction hash' })).toBeVisible()

  // Watch by keyboard: the focus stays on the button, which now says Unwatch.
  const watch = detail.getByTestId('watch-toggle')
  await watch.focus()
  await page.keyboard.press('Enter')
  await expect(watch).toHaveText(/Unwatch|Watch/)
  await expect(watch).toBeFocused()
  await expect(watch).toHaveAttribute('aria-pressed', 'true')
  await expect(watch).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(watch).toHaveAttribute('aria-pressed', 'false')

  // Escape closes the detail; the focus goes back to the order's row.
  await page.keyboard.press('Escape')
  await expect(detail).toHaveCount(0)
  await expect(first.locator('button.oid')).toBeFocused()
  // Escape from the row closes it too.
  await page.keyboard.press('Enter')
  await expect(detail).toBeVisible()
  await first.locator('button.oid').focus()
  await page.keyboard.press('Escape')
  await expect(detail).toHaveCount(0)
})
