// The little things of a tool used all day, at 1280x800 and by keyboard where an operator
// would: a skip link to the orders table; the address check in words, a pasted address
// trimmed and told which network it looks like; the quote amount converted when the
// direction changes, and the network comparison of the same moment as the quote card;
// order notifications through the browser's Notification API (permission asked once); the
// tray with watched orders first and their changes marked; one request-budget indicator
// only while something waits; and the states that stop work named where they show, each
// with its one action (no secret yet, the service slow, the service down, nothing synced).
import { createServer, type Server, type Socket } from 'node:net'
import { expect, test, type Page } from '@playwright/test'
import { sampleAddress } from '../../src/sandbox/sample-addresses'
import { navigate, openView, startApp, type E2eApp } from './harness'

let e: E2eApp

test.use({ viewport: { width: 1280, height: 800 } })

test.beforeAll(async () => {
  e = await startApp({ orders: 1500 })
})
test.afterAll(async () => {
  e?.control.clearFaults()
  await e?.close()
})

const sync = () => e.app.services.session().monitor.syncNow()

test('a skip link takes the keyboard past the navigation to the orders search, and ArrowDown on to the table', async ({ page }) => {
  await openView(page, e, 'orders')
  await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
  await page.keyboard.press('Tab')
  const skip = page.getByTestId('skip-link')
  await expect(skip).toBeFocused()
  await expect(skip).toHaveText('Skip to the orders search')
  await expect(skip).toBeInViewport()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('searchbox', { name: 'Search' })).toBeFocused()
  await page.keyboard.press('ArrowDown')
  // The focus is on a row of the table: Enter opens it.
  const focused = page.locator('tbody tr[data-order]:has(button.oid:focus)')
  await expect(focused).toHaveCount(1)
  const id = await focused.getAttribute('data-order')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('order-detail').getByRole('heading', { name: `Onramp order ${id}` })).toBeVisible()
})

test('the address rules read in words; spaces around a pasted address are dropped; another network is named', async ({ page }) => {
  await openView(page, e, 'address')
  const config = await e.app.services.handlers['config:get']({})
  const evm = config.chains.find((c) => c.symbol.toLowerCase() === 'bep20')!
  const tron = config.chains.find((c) => c.symbol.toLowerCase() === 'trc20')!
  await page.getByRole('combobox', { name: 'Network' }).selectOption(String(evm.id))
  const rules = page.getByTestId('address-rules')
  await expect(rules).toContainText('A BEP20 address is "0x" followed by 40 hexadecimal characters')
  // The pattern itself is behind "details".
  await expect(rules.getByText('^(0x)[0-9A-Fa-f]{40}$')).toBeHidden()
  await rules.getByText('details').click()
  await expect(rules.getByText('^(0x)[0-9A-Fa-f]{40}$')).toBeVisible()

  let seed = 7
  const rng = () => (seed = (seed * 16807) % 2147483647) / 2147483647
  const good = sampleAddress(evm.symbol, rng).address
  const input = page.getByRole('textbox', { name: 'Address' })
  await input.fill(`  ${good} \n`)
  await expect(page.getByTestId('address-verdict')).toHaveText('Address looks valid')
  await expect(page.getByTestId('address-trimmed')).toBeVisible()

  // A TRON address pasted while BEP20 is chosen: refused, and told it is a valid address of
  // another network of the coin, which it offers to check it on.
  const trx = sampleAddress(tron.symbol, rng).address
  await input.fill(trx)
  await expect(page.getByTestId('address-verdict')).toHaveText('Address refused')
  const looks = page.getByTestId('address-guide')
  await expect(looks).toContainText('This is a valid TRC20 address, not a BEP20 one.')
  await looks.getByRole('button', { name: /^Check it as (\S+ on )?TRC20$/ }).click()
  await expect(page.getByTestId('address-verdict')).toHaveText('Address looks valid')
})

test('switching the quote direction converts the amount by the quote shown and says so; the comparison is of the same moment', async ({
  page
}) => {
  await openView(page, e, 'quote')
  const amount = page.getByRole('textbox', { name: /Amount to pay/ })
  await amount.fill('5000')
  await expect(page.getByTestId('quote-result')).toBeVisible({ timeout: 20_000 })
  await expect(page.getByTestId('quote-receives')).not.toBeEmpty()

  // Prices move between the card's quote and the comparison.
  const usdt = e.control.prices().find((p) => p.coinCode === 'usdt' && p.fiatType === 1)!
  e.control.setPrice({ coinCode: 'usdt', fiatType: 1, price: (Number(usdt.mid) * 1.01).toFixed(4) })
  await page.getByRole('button', { name: 'Compare networks' }).click()
  await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 20_000 })
  await expect(page.getByTestId('compare-time')).toContainText(/^Quoted at .+, the same moment as the quote above\.$/)
  // The card and its network's row say the same: the card took the comparison's quote.
  const chainId = await page.getByRole('combobox', { name: 'Network' }).inputValue()
  const number = (t: string | null) => (t ?? '').replace(/[^\d.]/g, '')
  const row = page.locator(`[data-testid="compare-table"] tr[data-chain="${chainId}"] td`).nth(2)
  await expect.poll(async () => number(await page.getByTestId('quote-receives').textContent())).toBe(number(await row.textContent()))

  // Onramp → offramp by keyboard: the 5000 INR becomes the crypto it bought, said in a note.
  await page.getByRole('radio', { name: /Onramp/ }).focus()
  await page.keyboard.press('ArrowDown')
  await expect(page.getByRole('radio', { name: /Offramp/ })).toBeChecked()
  const note = page.getByTestId('direction-note')
  await expect(note).toContainText('5000 INR bought about')
  await expect(note).toContainText('that is now the quantity to sell')
  const quantity = page.getByRole('textbox', { name: /Quantity to sell/ })
  await expect(quantity).not.toHaveValue('5000')
  await expect(quantity).toHaveValue(/^\d+(\.\d+)?$/)
})

test('order notifications use the browser Notification API, asking for permission once', async ({ page, context }) => {
  await context.grantPermissions(['notifications'])
  // Record what the page shows and how often it asks.
  await page.addInitScript(`
    window.__shown = []
    window.__asked = 0
    const Real = window.Notification
    class Recorded {
      static get permission() { return Real.permission }
      static requestPermission() { window.__asked++; return Real.requestPermission() }
      constructor(title, options) { window.__shown.push({ title, body: options && options.body, tag: options && options.tag }) }
      close() {}
    }
    window.Notification = Recorded
  `)
  await e.app.services.handlers['settings:update']({
    notify: { terminalSuccess: true, terminalFailure: true, needsAttention: true, anyChange: true, watchedOnly: false }
  })
  await openView(page, e, 'orders')
  await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
  const order = e.control.createOrder({ type: 1, fiatType: 1, hold: true, path: 'completed' })
  await sync()
  e.control.advanceOrder(order.orderId)
  await sync()
  const shown = () => page.evaluate(() => (globalThis as unknown as { __shown: Array<{ title: string }> }).__shown)
  await expect.poll(async () => (await shown()).some((n) => n.title.includes(`order ${order.orderId}`)), { timeout: 20_000 }).toBe(true)
  // Settings say this browser shows them.
  await navigate(page, 'settings')
  await expect(page.getByTestId('browser-notifications')).toContainText('This browser shows them.')
})

test('the tray lists watched orders first, with their changes marked, readable at 360x480', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 480 })
  const watched = e.control.createOrder({ type: 1, fiatType: 1, hold: true, path: 'completed' })
  await sync()
  await e.app.services.handlers['orders:watch']({ type: 1, orderId: watched.orderId, watch: true })
  // Orders needing attention that would bury it.
  for (let i = 0; i < 3; i++) {
    const o = e.control.createOrder({ type: 2, path: 'alternate bank', hold: true })
    e.control.advanceOrder(o.orderId, 17)
  }
  e.control.advanceOrder(watched.orderId)
  await sync()
  await openView(page, e, 'tray')
  const items = page.getByTestId('tray-orders').locator('li[data-order]')
  await expect(items.first()).toHaveAttribute('data-order', String(watched.orderId), { timeout: 15_000 })
  await expect(items.first()).toHaveAttribute('data-watched', '')
  await expect(items.first()).toHaveAttribute('data-changed', '')
  await expect(items.first()).toContainText(/changed \d+ (s|min) ago/)
  // Among the rest, those needing the operator come before those moving.
  const flags = await items.evaluateAll((els) =>
    els.filter((el) => !el.hasAttribute('data-watched')).map((el) => el.hasAttribute('data-attention'))
  )
  expect(flags.indexOf(false) === -1 || flags.lastIndexOf(true) < flags.indexOf(false)).toBe(true)
  const width = await page.evaluate(() => {
    const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
    return [d.documentElement.scrollWidth, d.documentElement.clientWidth]
  })
  expect(width[0]).toBeLessThanOrEqual(width[1]!)
})

test('one indicator in the header while requests wait for their budget, leading to Diagnostics', async ({ page }) => {
  await openView(page, e, 'tickers')
  const indicator = page.getByTestId('budget-waiting')
  await expect(indicator).toHaveCount(0)
  // Twelve gas fee tables asked at once from an endpoint allowed ten a minute: the last ones wait.
  const client = e.app.services.session().client
  const asks = Array.from({ length: 12 }, () => client.allGasFee().catch(() => undefined))
  await expect(indicator).toBeVisible({ timeout: 15_000 })
  await expect(indicator).toContainText('waiting for request budget')
  await indicator.click()
  await expect(page.getByRole('heading', { name: 'Request budget' })).toBeVisible()
  void Promise.all(asks)
})

async function addLiveProfile(page: Page, name: string, baseUrl: string): Promise<void> {
  await navigate(page, 'settings')
  await page.getByRole('button', { name: 'New live profile' }).click()
  const form = page.getByRole('form', { name: 'New profile' })
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill(name)
  await form.getByRole('textbox', { name: 'Base URL' }).fill(baseUrl)
  await form.getByRole('textbox', { name: 'API key' }).fill('some-key')
  await form.getByRole('button', { name: 'Save profile' }).click()
  await expect(page.getByRole('heading', { name: `Credentials of “${name}”` })).toBeVisible()
}

test('no secret yet, a service slow to answer and nothing synced are each named with the one action that helps', async ({ page }) => {
  // A host that takes connections and never answers.
  const sockets: Socket[] = []
  const hang: Server = createServer((s) => void sockets.push(s))
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r))
  const port = (hang.address() as { port: number }).port
  try {
    await openView(page, e, 'settings')
    // No secret yet: every view says so, and where to add it.
    await addLiveProfile(page, 'No secret desk', e.app.services.sandbox()!.url)
    await page.getByRole('button', { name: 'Switch to No secret desk' }).click()
    await expect(page.getByTestId('profile-kind')).toHaveText('LIVE')
    const notice = page.getByTestId('service-notice').first()
    await expect(notice).toHaveAttribute('data-problem', 'no-secret', { timeout: 20_000 })
    await expect(notice).toContainText('No API secret stored yet')
    await notice.getByRole('link', { name: 'Add the secret' }).click()
    await expect(page.getByRole('heading', { name: 'Settings', exact: true })).toBeVisible()

    // A host that hangs: the Quote view says it waits and why, not an empty form.
    await addLiveProfile(page, 'Hanging desk', `http://127.0.0.1:${port}`)
    await page.getByTestId('secret-input').fill('a-secret-for-a-host-that-hangs')
    await page.getByRole('button', { name: 'Store secret' }).click()
    await page.getByRole('button', { name: 'Switch to Hanging desk' }).click()
    await expect(page.getByTestId('profile-kind')).toHaveText('LIVE')
    await navigate(page, 'quote')
    const wait = page.getByTestId('config-wait')
    await expect(wait).toContainText("Waiting for the service's configuration", { timeout: 10_000 })
    await expect(wait.getByTestId('service-notice')).toHaveAttribute('data-problem', 'service-slow', { timeout: 15_000 })
    await expect(wait).toContainText('The service is slow to answer')
    await expect(wait.getByRole('link', { name: 'Open Diagnostics' })).toBeVisible()
    // Orders: nothing synced yet, said as such rather than "No orders match".
    await navigate(page, 'orders')
    await expect(page.getByTestId('service-notice').filter({ hasText: 'No orders synced yet' })).toBeVisible()
  } finally {
    for (const s of sockets) s.destroy()
    hang.close()
    await navigate(page, 'settings')
    await page.getByRole('button', { name: 'Switch to Sandbox' }).click()
    await expect(page.getByTestId('profile-kind')).toHaveText('SANDBOX')
  }
})

test('the service down is named with "Try again now", and the state clears when it answers', async ({ page }) => {
  await openView(page, e, 'tickers')
  e.control.setFault('merchantHistory', { dropRate: 1 })
  try {
    await sync()
    const notice = page.getByTestId('service-notice')
    await expect(notice).toHaveAttribute('data-problem', 'service-down', { timeout: 15_000 })
    await expect(notice).toContainText('The service cannot be reached')
    await expect(notice.getByRole('button', { name: 'Try again now' })).toBeVisible()
    // Diagnostics says the request budget counts attempts that got no answer.
    await navigate(page, 'diagnostics')
    await expect(page.getByTestId('budget-down')).toContainText('The service is not answering')
    await navigate(page, 'tickers')
  } finally {
    e.control.clearFaults()
  }
  await page.getByTestId('service-notice').getByRole('button', { name: 'Try again now' }).click()
  // Gone within a second or so (0.2-1.0 s in six runs here). A sync run or a probe still on
  // the wire when the fault lifted fails, and "Try again now" runs it again at once rather
  // than leaving its error up for its back-off (order-monitor and coverage-monitor tests).
  await expect(page.getByTestId('service-notice')).toHaveCount(0, { timeout: 20_000 })
})
