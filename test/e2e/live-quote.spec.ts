// Quotes follow the amount as it is typed: asked once typing pauses,
// one request at a time with the latest answer shown, the amount the breakdown belongs
// to named, the button asking again at once, and the stale time taken from main.
import { expect, test, type Page, type Request, type Route } from '@playwright/test'
import { openView, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
})
test.afterAll(async () => {
  await e?.close()
})
/** Puts main's quote handler back after a test wrapped it. */
let restoreQuotes = () => undefined as void
test.afterEach(() => {
  restoreQuotes()
  restoreQuotes = () => undefined
})

/** Two onramp amounts inside the limits of the default coin and network, in INR. */
async function amountsInside(page: Page): Promise<[number, number]> {
  const config = await e.app.services.handlers['config:get']({})
  const coinId = Number(await page.getByRole('combobox', { name: 'Coin' }).inputValue())
  const chainId = Number(await page.getByRole('combobox', { name: 'Network' }).inputValue())
  const min = Math.max(
    Number(config.limits.onramp['1']?.min ?? 100),
    Number(config.minimumBuyAmount[String(coinId)]?.[String(chainId)] ?? 0)
  )
  return [Math.ceil(min * 3), Math.ceil(min * 5)]
}

const grouped = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })

/**
 * Every quotes:get the page sends, with the amount asked and how many were in flight at once.
 * A request counts from the moment the page sends it (the route sees it) until main has
 * answered it: main's handler is wrapped, and it settles before its answer can reach the
 * page, so the page cannot send the next request before this one is counted out. (Counting
 * out on Playwright's 'requestfinished' raced the next request's route under load.)
 */
function watchQuotes(page: Page, hold?: (amount: string) => Promise<void>) {
  const asked: string[] = []
  let inFlight = 0
  let most = 0
  const handlers = e.app.services.handlers
  const answer = handlers['quotes:get']
  handlers['quotes:get'] = (input) => answer(input).finally(() => void inFlight--)
  page.on('requestfailed', (r: Request) => void (r.url().endsWith('/rpc/quotes:get') && inFlight--))
  void page.route('**/rpc/quotes:get', async (route: Route) => {
    const body = route.request().postDataJSON() as { fiatAmount?: string }
    asked.push(body.fiatAmount ?? '')
    inFlight++
    most = Math.max(most, inFlight)
    await hold?.(body.fiatAmount ?? '')
    // Sent on by the browser itself: the harness's <random>.localhost name is one only browsers resolve.
    await route.continue()
  })
  restoreQuotes = () => void (handlers['quotes:get'] = answer)
  return { asked, most: () => most }
}

test('the quote follows the amount as typed, names its amount, and the button asks again', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' })
  const quotes = watchQuotes(page)
  await openView(page, e, 'quote')
  const amount = page.getByRole('textbox', { name: /Amount to pay/ })
  await expect(amount).toBeVisible()
  const [a, b] = await amountsInside(page)

  // Typed key by key with no click: one request once typing pauses, not one per digit.
  await amount.pressSequentially(String(a), { delay: 40 })
  const result = page.getByTestId('quote-result')
  await expect(result.getByTestId('quote-for')).toContainText(`${grouped(a)} INR`, { timeout: 15_000 })
  await expect(result.getByText('Customer receives')).toBeVisible()
  await expect(result.getByTestId('quote-not-current')).toHaveCount(0)
  expect(quotes.asked).toEqual([String(a)])

  // A new amount: the old breakdown stays, labelled as not the amount typed, until the new one arrives.
  await amount.fill(String(b))
  await expect(result.getByTestId('quote-for')).toContainText(`${grouped(b)} INR`, { timeout: 15_000 })
  expect(quotes.asked).toEqual([String(a), String(b)])

  // An amount that is refused leaves the last quote on screen, marked as not for it; nothing is sent.
  await amount.fill('1')
  await expect(page.getByTestId('limit-error')).toBeVisible()
  await expect(result.getByTestId('quote-not-current')).toBeVisible()
  await amount.fill(String(b))
  await expect(result.getByTestId('quote-not-current')).toHaveCount(0)
  await page.waitForTimeout(1000)
  expect(quotes.asked).toEqual([String(a), String(b)])

  // The button stays: it asks again at once for the same amount.
  const answered = page.waitForResponse('**/rpc/quotes:get')
  await page.getByRole('button', { name: 'Get quote' }).click()
  await answered
  expect(quotes.asked).toHaveLength(3)
  expect(quotes.asked[2]).toBe(String(b))
  expect(quotes.most()).toBe(1)
})

test('one request in flight: what is typed meanwhile is asked after it, and only the latest answer is shown', async ({ page }) => {
  let release: () => void = () => undefined
  const firstHeld = new Promise<void>((r) => (release = r))
  let first = true
  const quotes = watchQuotes(page, async () => {
    if (!first) return
    first = false
    await firstHeld
  })
  await openView(page, e, 'quote')
  const amount = page.getByRole('textbox', { name: /Amount to pay/ })
  await expect(amount).toBeVisible()
  const [a, b] = await amountsInside(page)

  await amount.fill(String(a))
  await expect.poll(() => quotes.asked.length).toBe(1)
  await amount.fill(String(b))
  // The pause has passed, but the first request is still in flight: nothing more is sent.
  await page.waitForTimeout(1000)
  expect(quotes.asked).toEqual([String(a)])
  await expect(page.getByTestId('quote-result').getByTestId('quote-for')).toHaveCount(0)
  release()
  // The answer for the first amount is dropped; the latest amount is asked and shown.
  await expect.poll(() => quotes.asked).toEqual([String(a), String(b)])
  await expect(page.getByTestId('quote-for')).toContainText(`${grouped(b)} INR`, { timeout: 15_000 })
  expect(quotes.most()).toBe(1)
})

test('the stale time is the one main gives with the quote', async ({ page }) => {
  // Main's answer, with its stale time moved to four seconds after the quote.
  await page.route('**/rpc/quotes:get', async (route) => {
    // Main's own handler answers (in process: the harness's name is one only browsers resolve).
    const value = await e.app.services.handlers['quotes:get'](route.request().postDataJSON())
    await route.fulfill({ json: { ok: true, value: { ...value, staleAt: value.quotedAt + 4_000 } } })
  })
  await openView(page, e, 'quote')
  const amount = page.getByRole('textbox', { name: /Amount to pay/ })
  await expect(amount).toBeVisible()
  const [a] = await amountsInside(page)
  await amount.fill(String(a))
  const result = page.getByTestId('quote-result')
  await expect(result.getByTestId('quote-age')).toContainText(/stale in [1-4] s/, { timeout: 15_000 })
  await expect(result.getByTestId('quote-stale')).toBeVisible({ timeout: 10_000 })
})
