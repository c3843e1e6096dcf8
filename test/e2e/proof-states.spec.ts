// Proof kept quiet until it matters, and states that agree, as
// an operator sees them at 1280x800, 960x600 and in the tray at 360x480: the first sync's
// banner counts the orders already here (never "No orders synced yet" above rows); once
// synced, the first checks run at once and say so in one line, not a block of "not checked
// yet"; every order here is one quiet line in the orders view and nothing
// in the tray, each fiat on demand (Details); an outage is the service unreachable, said
// once, never a budget wait, with no error code, endpoint name or library word anywhere
// the operator reads (they stay in Diagnostics).
import { expect, test, type Page } from '@playwright/test'
import { layoutProblems } from './layout'
import { navigate, openView, startApp, type E2eApp } from './harness'

let e: E2eApp

/** A screenshot to look at, under test-results/ only (the README's are retaken by the lead). */
async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-results/screenshots/${name}.png`, animations: 'disabled' })
}

test.beforeAll(async () => {
  // Slow history answers, so the first sync can be watched page by page.
  e = await startApp({ orders: 12_000, sandbox: { faults: { merchantHistory: { latencyMs: 1200 } } } })
  e.control.stopGenerator()
})
test.afterAll(async () => {
  e?.control.clearFaults()
  await e?.close()
})

/** What the operator reads on the page (not the tooltips, which are for support). */
const readable = (page: Page) => page.locator('body').innerText()
/** What the app says of its state: the header, its notices, the proof line, alerts, the tray's state (not the orders' own data). */
const stateText = async (page: Page): Promise<string> =>
  (
    await page
      .locator(
        'header[aria-label="Status"], [data-testid="service-notice"], [data-testid="orders-proof"], [role="alert"], [data-testid="tray-state"], [data-testid="tray-proof"]'
      )
      .allInnerTexts()
  ).join('\n')
const TECHNICAL =
  /ECONN|UND_ERR|socket|other side closed|fetch failed|merchantHistory|orderStatus|\bprob(e|ed)\b|\(api |\b(400|500|502|503)\b/i

test('the first sync counts what is here; the first checks are one line; all here is one quiet line, none in the tray', async ({
  page,
  context
}) => {
  test.setTimeout(240_000)
  await page.setViewportSize({ width: 1280, height: 800 })
  await openView(page, e, 'orders')
  const banner = page.locator('[data-testid="service-notice"][data-problem="never-synced"]')
  const rows = page.locator('tbody tr[data-order]')
  await expect(rows.first()).toBeVisible({ timeout: 90_000 })
  // While the first sync runs, the banner counts what is already here; it never says none is.
  let seen = 0
  for (let i = 0; i < 6; i++) {
    const text = await readable(page)
    if ((await rows.count()) > 0) expect(text).not.toContain('No orders synced yet')
    const m = /Syncing: ([\d,]+) orders? so far/.exec(text)
    if (m) {
      seen = Math.max(seen, Number(m[1]!.replace(/,/g, '')))
      console.log(`first sync: the banner says "${m[0]}" above a table of ${await page.getByTestId('orders-total').innerText()}`)
    }
    if (i === 1 && (await banner.count())) await shot(page, 'orders-first-sync')
    await page.waitForTimeout(700)
  }
  expect(seen, 'the banner counted the orders of the first sync').toBeGreaterThan(0)
  console.log(`first sync banner: "Syncing: ${seen.toLocaleString('en-US')} orders so far"`)

  // The sync done, the first checks follow at once: one line while they run (never a block of
  // per-fiat "not checked yet" beside the rows), then one quiet line.
  e.control.clearFaults()
  await expect(banner).toHaveCount(0, { timeout: 120_000 })
  const proof = page.getByTestId('orders-proof')
  await expect(proof.getByRole('status')).toHaveText(
    /^(Checking that every order is here: \d+ of \d+ fiats? done( · .+)?|✓\s*All orders here · checked .+)$/,
    { timeout: 60_000 }
  )
  expect(await readable(page)).not.toMatch(/\d orders?, not checked yet/)
  await expect(proof).toHaveCount(1)
  await shot(page, 'orders-checking')
  const tray = await context.newPage()
  await tray.setViewportSize({ width: 360, height: 480 })
  await openView(tray, e, 'tray')
  await expect(proof).toHaveAttribute('data-proof', 'complete', { timeout: 120_000 })

  // Each fiat on demand: Details, with a check now.
  await page.getByTestId('proof-details').click()
  const perFiat = page.getByTestId('orders-coverage')
  await expect(perFiat.locator('li[data-scope="1:1"]')).toContainText(/^INR [\d,]+ orders · complete, checked/)
  await page.setViewportSize({ width: 960, height: 600 })
  // The table lays its columns out again for the new width first.
  await expect.poll(() => layoutProblems(page), { message: 'orders with the per-fiat detail at 960x600' }).toEqual([])
  await shot(page, 'orders-proof-details-960')
  await page.setViewportSize({ width: 1280, height: 800 })
  await perFiat.getByTestId('coverage-check').click()
  await expect(proof).toHaveAttribute('data-proof', 'complete', { timeout: 60_000 })
  await expect(proof.getByRole('status')).toHaveText(/^✓\s*All orders here · checked \d{1,2}:\d{2}( [AP]M)?$/)
  await expect(perFiat.locator('li[data-scope="1:1"]')).toContainText(/· complete, checked/)
  // Quiet: the detail closed, one line.
  await page.getByTestId('proof-details').click()
  await expect(perFiat).toHaveCount(0)
  await shot(page, 'orders-all-here')
  // Nothing of it in the tray: watched orders and what needs the operator only.
  await expect(tray.getByTestId('tray-proof')).toHaveCount(0, { timeout: 20_000 })
  await expect(tray.getByTestId('tray-state')).not.toContainText(/complete|checked/)
  expect(await layoutProblems(tray), 'tray at 360x480').toEqual([])
  await shot(tray, 'tray-all-here')
  await tray.close()
})

test('an outage is the service unreachable, said once in plain words, never the budget; Diagnostics keeps the technical words', async ({
  page,
  context
}) => {
  test.setTimeout(180_000)
  // Past the first sync (a test run alone starts with it, slowed).
  e.control.clearFaults()
  await expect
    .poll(
      () =>
        e.app.services
          .session()
          .monitor.states()
          .every((s) => s.lastSuccessAt !== null),
      { timeout: 120_000 }
    )
    .toBe(true)
  await page.setViewportSize({ width: 960, height: 600 })
  await openView(page, e, 'orders')
  await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 60_000 })
  const tray = await context.newPage()
  await tray.setViewportSize({ width: 360, height: 480 })
  await openView(tray, e, 'tray')

  // Every endpoint drops its connections: the service is down.
  const sent = () => Object.values(e.app.services.session().client.stats()).reduce((a, b) => a + b, 0)
  const sentBefore = sent()
  const outageFrom = Date.now()
  e.control.setFault('*', { dropRate: 1 })
  try {
    await e.app.services
      .session()
      .monitor.syncNow()
      .catch(() => undefined)
    const notice = page.getByTestId('service-notice').first()
    await expect(notice).toHaveAttribute('data-problem', 'service-down', { timeout: 30_000 })
    await expect(notice).toContainText('The service cannot be reached')
    // Requests queue behind the outage: still no "waiting for request budget", no failing count, no "syncing".
    await page.waitForTimeout(3000)
    await expect(page.getByTestId('budget-waiting')).toHaveCount(0)
    await expect(page.getByTestId('sync-failing')).toHaveCount(0)
    await expect(page.getByTestId('sync-state')).not.toContainText(/syncing|budget|failing|lag/)
    const said = await stateText(page)
    expect(said).toContain('The service cannot be reached')
    expect(said).not.toMatch(TECHNICAL)
    expect(said).not.toMatch(/budget/i)
    await shot(page, 'orders-outage-960')

    // The tray: offline, said once, in plain words.
    const state = tray.getByTestId('tray-state')
    await expect(state).toHaveAttribute('data-level', 'offline', { timeout: 20_000 })
    await expect(tray.getByText('Offline: orders are not updating')).toHaveCount(1)
    expect((await readable(tray)).match(/cannot be reached/g) ?? []).toHaveLength(1)
    expect(await stateText(tray)).not.toMatch(TECHNICAL)
    expect(await layoutProblems(tray), 'offline tray at 360x480').toEqual([])
    await shot(tray, 'tray-outage')

    // Support still finds the technical words where they look.
    await navigate(page, 'diagnostics')
    await expect(page.getByTestId('diag-endpoints').locator('tr[data-endpoint="merchantHistory"]')).toContainText(/network/, {
      timeout: 20_000
    })
  } finally {
    e.control.clearFaults()
  }
  // The outage was found out one request at a time: a few budget slots, not every caller's
  // four attempts (57 in a 13 s outage without it).
  const spent = sent() - sentBefore
  console.log(`outage of ${Math.round((Date.now() - outageFrom) / 1000)} s: ${spent} requests sent into it`)
  expect(spent).toBeLessThan(25)
  await navigate(page, 'orders')
  await page.getByTestId('service-notice').getByRole('button', { name: 'Try again now' }).click()
  // The outage was probed one request at a time (api/outage-gate.ts), so the budget's minute
  // is not spent and the runs the button starts go at once: the notice clears within
  // seconds, not after the minute.
  await expect(page.getByTestId('service-notice')).toHaveCount(0, { timeout: 30_000 })
  await expect(tray.getByTestId('tray-state')).not.toHaveAttribute('data-level', 'offline', { timeout: 20_000 })
  await tray.close()
})

test('the header says when orders were last synced, without an unexplained lag', async ({ page }) => {
  await openView(page, e, 'tickers')
  await expect(page.getByTestId('last-sync')).toContainText(/^last .+ ago|just now/, { timeout: 30_000 })
  await expect(page.getByTestId('sync-state')).not.toContainText('lag')
})
