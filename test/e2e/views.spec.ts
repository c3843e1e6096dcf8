// The everyday views used as an operator would, through the browser harness against
// the embedded sandbox: header, tickers, quote (inside and outside the limits),
// address check, bank details, settings and theme, the logs folder, keyboard
// navigation; a screenshot of each.
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { breakChecksum } from '../support/break-checksum'
import { sampleAddress } from '../../src/sandbox/sample-addresses'
import { navigate, openView, shot, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
})
test.afterAll(async () => {
  await e?.close()
})

/** Counts the quote requests the page sends, to prove none leaves for a refused amount. */
function countQuoteRequests(page: Page): { count: () => number } {
  let n = 0
  page.on('request', (r) => {
    if (/\/rpc\/quotes:(get|compare)$/.test(r.url())) n++
  })
  return { count: () => n }
}

test('the header names the sandbox profile and the sync state; the request budget is in Diagnostics', async ({ page }) => {
  await openView(page, e, 'tickers')
  await expect(page.getByTestId('profile-kind')).toHaveText('SANDBOX')
  await expect(page.getByTestId('sync-state')).toContainText('Sync')
  // No endpoint names or budget bars on every view: one indicator, only while something waits.
  await expect(page.getByRole('banner', { name: 'Status' }).getByRole('list', { name: 'Request budgets' })).toHaveCount(0)
  await expect(page.getByRole('banner', { name: 'Status' })).not.toContainText('allChainMapping')
  await page.keyboard.press('Alt+7')
  await expect(page.getByRole('heading', { name: 'Request budget' })).toBeVisible()
  await expect(page.getByRole('list', { name: 'Request budgets' }).getByRole('listitem').first()).toBeVisible()
  await expect(page.getByRole('list', { name: 'Request budgets' })).toContainText(/\d+ of 10 left/)
})

test('tickers show buy and sell per coin with age, and a coin can be pinned for the tray', async ({ page }) => {
  await openView(page, e, 'tickers')
  const table = page.getByRole('table', { name: /Prices in/ })
  const rows = table.locator('tbody tr[data-coin]')
  await expect(rows.first()).toBeVisible({ timeout: 20_000 })
  const first = rows.first()
  await expect(first.locator('td').nth(0)).toContainText(/\d/)
  await expect(first.locator('td.age')).toContainText(/ago|never|just now/)
  const pin = first.getByRole('button', { name: /^Pin .* to the tray$/ })
  if ((await pin.getAttribute('aria-pressed')) !== 'true') await pin.click()
  await expect(pin).toHaveAttribute('aria-pressed', 'true')
  await shot(page, 'tickers')
})

test('an amount outside the limits is refused before any request, and bad input is named', async ({ page }) => {
  const requests = countQuoteRequests(page)
  await openView(page, e, 'quote')
  const amount = page.getByRole('textbox', { name: /Amount to pay/ })
  await expect(amount).toBeVisible()

  await amount.fill('-5')
  await expect(page.getByTestId('amount-error')).toHaveText(/cannot be negative/)
  await amount.fill('abc')
  await expect(page.getByTestId('amount-error')).toBeVisible()
  await amount.fill('12.345')
  await expect(page.getByTestId('amount-error')).toHaveText(/At most 2 decimal places/)

  await amount.fill('1')
  await expect(page.getByTestId('limit-error')).toHaveText(/Below the minimum/)
  await expect(page.getByRole('button', { name: 'Get quote' })).toBeDisabled()
  await amount.press('Enter')
  await amount.fill('999999999')
  await expect(page.getByTestId('limit-error')).toHaveText(/Above the maximum/)
  await amount.press('Enter')
  await shot(page, 'quote-refused')
  expect(requests.count()).toBe(0)
})

test('an onramp quote is laid out fee by fee, with age, customer text and a network comparison', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await openView(page, e, 'quote')
  const config = await e.app.services.handlers['config:get']({})
  const amount = page.getByRole('textbox', { name: /Amount to pay/ })
  await expect(amount).toBeVisible()
  // The selects are filled once the configuration has arrived (late on a loaded machine).
  const coinBox = page.getByRole('combobox', { name: 'Coin' })
  const chainBox = page.getByRole('combobox', { name: 'Network' })
  await expect.poll(async () => Number(await coinBox.inputValue()) > 0 && Number(await chainBox.inputValue()) > 0).toBe(true)
  const coinId = Number(await coinBox.inputValue())
  const chainId = Number(await chainBox.inputValue())
  const lim = config.limits.onramp['1']
  const minBuy = config.minimumBuyAmount[String(coinId)]?.[String(chainId)]
  const min = Math.max(Number(lim?.min ?? 100), Number(minBuy ?? 0))
  await amount.fill(String(Math.ceil(min * 3)))
  await expect(page.getByTestId('limit-error')).toHaveCount(0)
  await page.getByRole('button', { name: 'Get quote' }).click()

  const result = page.getByTestId('quote-result')
  await expect(result.getByText('Customer receives')).toBeVisible({ timeout: 15_000 })
  for (const fee of ['onrampFee', 'clientFee', 'gatewayFee', 'gasFee']) await expect(result.locator(`tr[data-fee="${fee}"]`)).toBeVisible()
  await expect(result.getByTestId('total-fees')).toContainText(/\d/)
  await expect(result.getByTestId('quote-age')).toContainText('stale in')
  await result.getByRole('button', { name: 'Copy for customer' }).click()
  await expect(result.getByRole('button', { name: 'Copy for customer' })).toHaveText('Copied')
  const copied = await page.evaluate(() =>
    (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText()
  )
  expect(copied).toContain('You pay')
  expect(copied).toContain('You receive')
  await result.getByText('Text for the customer').click()
  await expect(result.locator('pre.customer')).toHaveText(copied)

  await page.getByRole('button', { name: 'Compare networks' }).click()
  const cmp = page.getByTestId('compare-table')
  await expect(cmp).toBeVisible({ timeout: 15_000 })
  // The coin the comparison is for, in the configuration as it is now.
  const shownCoin = Number(await coinBox.inputValue())
  const now = await e.app.services.handlers['config:get']({})
  const networks = now.coins.find((c) => c.id === shownCoin)?.networks.length ?? 0
  expect(networks).toBeGreaterThan(0)
  await expect(cmp.locator('tbody tr')).toHaveCount(networks)
  if (networks > 0) await expect(cmp.getByText('cheapest')).toHaveCount(1)
  await shot(page, 'quote')
})

test('an offramp quote turns a crypto quantity into INR; too little is refused before any request', async ({ page }) => {
  const requests = countQuoteRequests(page)
  await openView(page, e, 'quote')
  await page.getByRole('radio', { name: /Offramp/ }).check()
  const qty = page.getByRole('textbox', { name: /Quantity to sell/ })
  await expect(qty).toHaveAccessibleName(/Quantity to sell \(USDT\)/)
  // Only what spec 4.9 lets be sold: USDT on its four networks; no BNB at all.
  const coinOptions = page.getByRole('combobox', { name: 'Coin' }).locator('option')
  await expect(coinOptions.filter({ hasText: /^USDT/ })).toHaveCount(1)
  await expect(coinOptions.filter({ hasText: /^BNB/ })).toHaveCount(0)
  await expect(page.getByRole('combobox', { name: 'Network' }).locator('option')).toHaveText(['BEP20', 'MATIC20', 'ERC20', 'TRC20'])
  await qty.fill('1')
  await expect(page.getByTestId('limit-error')).toContainText(/worth about .* INR/)
  await qty.press('Enter')
  expect(requests.count()).toBe(0)
  await qty.fill('100')
  await expect(page.getByTestId('limit-error')).toHaveCount(0)
  await page.getByRole('button', { name: 'Get quote' }).click()
  const result = page.getByTestId('quote-result')
  await expect(result.getByText('Customer receives')).toBeVisible({ timeout: 15_000 })
  await expect(result.locator('tr[data-fee="tdsFee"]')).toBeVisible()
  await expect(result.getByTestId('quote-receives')).toContainText('INR')
})

test('an address with a broken checksum is refused with the reason; a good one passes', async ({ page }) => {
  await openView(page, e, 'address')
  const config = await e.app.services.handlers['config:get']({})
  const evm = config.chains.find((c) => ['erc20', 'bep20', 'matic20'].includes(c.symbol.toLowerCase()))
  test.skip(!evm, 'the sandbox config has no EVM chain')
  if (!evm) return
  let seed = 42
  const rng = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const good = sampleAddress(evm.symbol, rng).address
  const broken = breakChecksum(good, evm.symbol)
  expect(broken).not.toBe(good)

  await page.getByRole('combobox', { name: 'Network' }).selectOption(String(evm.id))
  const input = page.getByRole('textbox', { name: 'Address' })
  await input.fill(good)
  await expect(page.getByTestId('address-verdict')).toHaveText('Address looks valid')
  const explorer = page.getByRole('link', { name: /Open in the explorer/ })
  if ((await explorer.count()) > 0) {
    await explorer.click()
    await expect.poll(() => e.app.services.openedUrls.some((u) => u.includes(good))).toBe(true)
  }
  await input.fill(broken)
  await expect(page.getByTestId('address-verdict')).toHaveText('Address refused')
  const failed = page.locator('li[data-check="checksum"]')
  await expect(failed).toContainText('EIP-55 checksum')
  await expect(failed).toHaveClass(/bad/)
  await expect(failed.locator('.detail')).not.toBeEmpty()
  // A typo in the checksum is not another network's address.
  await expect(page.getByTestId('address-guide')).toHaveCount(0)
  await shot(page, 'address')
})

test('bank details show UPI and accounts with copy buttons and typed notes', async ({ page }) => {
  await openView(page, e, 'bank')
  await expect(page.getByRole('heading', { name: 'UPI' })).toBeVisible({ timeout: 15_000 })
  await expect(
    page
      .getByTestId('bank-accounts')
      .getByRole('button', { name: /^Copy Account number/ })
      .first()
  ).toBeVisible()
  await expect(page.getByTestId('upi').getByRole('button', { name: /^Copy UPI id/ })).toBeVisible()
  await shot(page, 'bank')
})

test('settings change the theme, and the navigation works from the keyboard', async ({ page }) => {
  await openView(page, e, 'settings')
  await expect(page.getByRole('list', { name: 'Profiles' }).getByRole('listitem')).not.toHaveCount(0)
  await shot(page, 'settings')
  const theme = page.getByRole('combobox', { name: 'Theme' })
  await theme.selectOption('dark')
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  await navigate(page, 'tickers')
  await expect(page.locator('tbody tr[data-coin]').first()).toBeVisible({ timeout: 15_000 })
  await shot(page, 'tickers-dark')
  await navigate(page, 'settings')
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('system')
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./)

  const nav = page.getByRole('navigation', { name: 'Views' })
  await nav.getByRole('link', { name: 'Tickers' }).focus()
  await page.keyboard.press('Tab')
  await expect(nav.getByRole('link', { name: 'Quote' })).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { name: 'Quote', level: 1 })).toBeVisible()
  await expect(nav.getByRole('link', { name: 'Quote' })).toHaveAttribute('aria-current', 'page')
  await page.keyboard.press('Alt+5')
  await expect(page.getByRole('heading', { name: 'Orders', level: 1 })).toBeVisible()
  await expect(nav.getByRole('link', { name: 'Orders' })).toHaveAttribute('aria-current', 'page')
})

test('settings: "Open logs folder" shows where the support log is, since a browser has no file manager to open', async ({ page }) => {
  await openView(page, e, 'settings')
  const card = page.getByRole('region', { name: 'Logs for support' })
  await card.getByRole('button', { name: 'Open logs folder' }).click()
  const logsDir = join(e.app.dataDir, 'logs')
  await expect(card.getByRole('status')).toContainText(`The logs are in ${logsDir}`)
  await expect(card.getByRole('button', { name: 'Copy the logs folder' })).toBeVisible()
  const files = await readdir(logsDir)
  expect(files.some((f) => /^rampdesk\.\d+\.log$/.test(f))).toBe(true)
})
