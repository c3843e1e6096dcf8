// The customer on the phone says "I paid": the operator finds the order and reads its
// answer first, at 1280x800 and at 960x600, by keyboard. The table says the status in words
// (its number only in the tooltip), every amount carries its unit, the detail leads with
// the status in words, what it means, what to tell the customer and when it was last
// confirmed, then the fields (fees in their units, the fiat ones added up); Check now asks
// the service at once and says what it found; Copy for customer copies the amounts with
// their units.
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { openView, startApp, type E2eApp } from './harness'
import { statusInfo } from '../../src/shared/domain/status'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp({ orders: 1500 })
})
test.afterAll(async () => {
  await e?.close()
})

/** Screenshots of this spec, for looking at (never the README's). */
async function look(page: Page, name: string): Promise<void> {
  const dir = resolve('test-results/words')
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, `${name}.png`), await page.screenshot({ animations: 'disabled' }))
}

type Clip = { navigator: { clipboard: { readText(): Promise<string> } } }

/** Integration words an operator on the phone must not read. */
const INTEGRATION = /webhook|reference id|\bAPI\b|endpoint|\bnull\b|orderStatus|merchantHistory|ECONNREFUSED/i

/** An onramp order held at its first step, synced and found by its id, as the operator types it. */
async function findOrder(page: Page): Promise<number> {
  const created = e.control.createOrder({ type: 1, fiatType: 1, hold: true, path: 'completed' })
  await openView(page, e, 'orders')
  await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 45_000 })
  const search = page.getByTestId('orders-search')
  await search.fill(String(created.orderId))
  const row = page.locator(`tbody tr[data-order="${created.orderId}"]`)
  await expect(async () => {
    await page.getByRole('button', { name: 'Sync now' }).click()
    await expect(row).toBeVisible({ timeout: 3_000 })
  }).toPass({ timeout: 45_000 })
  return created.orderId
}

for (const size of [
  { width: 1280, height: 800 },
  { width: 960, height: 600 }
]) {
  test.describe(`at ${size.width}x${size.height}`, () => {
    test.use({ viewport: size })

    test('the order answers first: status in words, what to tell, amounts with units, then Check now', async ({ page, context }) => {
      test.setTimeout(120_000)
      await context.grantPermissions(['clipboard-read', 'clipboard-write'])
      const id = await findOrder(page)
      const row = page.locator(`tbody tr[data-order="${id}"]`)
      const status = Number(await row.getAttribute('data-status'))
      const info = statusInfo(1, status)

      // The table: the label in words, no number in the cell; the number and meaning in the tooltip.
      const pill = row.locator('td.st .pill')
      await expect(pill).toHaveText(info.label)
      await expect(row.locator('td.st')).not.toContainText(`(${status})`)
      await expect(row.locator('td.st .st-line')).toHaveAttribute('title', new RegExp(`^${info.label} \\(status ${status}\\): `))
      // The amounts in the table carry their units.
      await expect(row.locator('td.num').first()).toContainText('INR')

      // By keyboard: from the row to the detail, whose heading takes the focus.
      await row.getByRole('button', { name: new RegExp(`^Order ${id}`) }).focus()
      await page.keyboard.press('Enter')
      const detail = page.getByTestId('order-detail')
      await expect(detail.getByRole('heading', { name: `Onramp order ${id}` })).toBeFocused()

      // The story comes first, above the fields.
      const story = detail.getByTestId('order-story')
      await expect(story.getByTestId('story-status')).toHaveText(info.label)
      await expect(story.getByTestId('story-status-number')).toHaveText(`status ${status}`)
      await expect(story.getByTestId('story-meaning')).toHaveText(info.meaning)
      await expect(story.getByTestId('story-tell')).toHaveText(`Tell the customer: ${info.tell}`)
      await expect(story.getByTestId('status-confirmed')).toContainText(/by a (history sync|status check|webhook from the service)/)
      const storyBox = (await story.boundingBox())!
      const fieldsBox = (await detail.getByTestId('order-fields').boundingBox())!
      expect(storyBox.y).toBeLessThan(fieldsBox.y)
      const amounts = story.getByTestId('story-amounts')
      await expect(amounts).toContainText(/Customer pays\s*[\d,.]+ INR/)
      await expect(amounts).toContainText(/Fees in INR together\s*[\d,.]+ INR/)
      await expect(amounts).toContainText(/Network fee in [A-Z0-9]+\s*[\d.]+ [A-Z0-9]+/)
      await look(page, `detail-${size.width}`)

      // Every fee in the fields carries its unit: the network fee in the coin, the others in the fiat.
      const fields = detail.getByTestId('order-fields')
      const coin = /Network fee in ([A-Z0-9]+)/.exec(await amounts.innerText())![1]!
      await expect(fields.locator('[data-field="gasFee"] dd')).toHaveText(new RegExp(`^[\\d.,]+ ${coin}\\s*$`))
      await expect(fields.locator('[data-field="actualPrice"] dd, [data-field="expectedPrice"] dd').first()).toHaveText(
        new RegExp(` INR per ${coin}\\s*$`)
      )
      for (const fee of ['onrampFee', 'clientFee', 'gatewayFee'])
        await expect(fields.locator(`[data-field="${fee}"] dd`)).toHaveText(/\d INR\s*$/)
      await expect(fields.locator('[data-field="fiatFeesTotal"]')).toContainText(/Fees in INR together\s*[\d,.]+ INR/)
      // Nothing of the integration in what the operator reads first.
      expect(await story.innerText()).not.toMatch(INTEGRATION)

      // Check now, by keyboard: the service asked at once, and what it found said.
      const check = story.getByTestId('check-now')
      await check.focus()
      await page.keyboard.press('Enter')
      await expect(story.getByTestId('check-result')).toHaveText(`Checked with the service just now: still ${info.label}.`, {
        timeout: 20_000
      })
      await expect(story.getByTestId('status-confirmed')).toContainText('by a status check')

      // The order moves at the service; nothing has synced it: Check now finds it.
      const moved = e.control.advanceOrder(id)
      const now = statusInfo(1, moved.status)
      await check.click()
      await expect(story.getByTestId('check-result')).toHaveText(
        `Checked with the service just now: now ${now.label} (it was ${info.label}).`,
        { timeout: 20_000 }
      )
      await expect(story.getByTestId('story-status')).toHaveText(now.label)
      await expect(story.getByTestId('story-tell')).toHaveText(`Tell the customer: ${now.tell}`)
      await expect(detail.getByTestId('timeline')).toContainText(`by a status check`)
      await expect(row).toHaveAttribute('data-status', String(moved.status), { timeout: 15_000 })
      await look(page, `checked-${size.width}`)

      // Copy for customer: the amounts with their units, the status in words, no number.
      await story.getByRole('button', { name: 'Copy for customer' }).click()
      const copied = await page.evaluate(() => (globalThis as unknown as Clip).navigator.clipboard.readText())
      expect(copied).toMatch(new RegExp(`^Order ${id}: buying `))
      expect(copied).toContain(`Status: ${now.label}`)
      expect(copied).toMatch(/You pay: [\d,.]+ INR/)
      expect(copied).not.toMatch(INTEGRATION)
      expect(copied).not.toContain(`(${moved.status})`)

      await page.keyboard.press('Escape')
      await expect(detail).toBeHidden()
    })
  })
}

test('an unknown status is said as such, with what to do, in the table and the detail', async ({ page }) => {
  test.setTimeout(120_000)
  await page.setViewportSize({ width: 960, height: 600 })
  const id = await findOrder(page)
  // The service reported a status this app does not know (kept as it came; the sandbox has none such to send).
  e.app.services.session().store.orders.applyStatus(1, id, 77, 'watch')
  await openView(page, e, 'orders')
  await page.getByTestId('orders-search').fill(String(id))
  const row = page.locator(`tbody tr[data-order="${id}"]`)
  await expect(row.locator('td.st .pill')).toHaveText('Unknown status 77', { timeout: 15_000 })
  await row.locator('button.oid').click()
  const story = page.getByTestId('order-story')
  await expect(story.getByTestId('story-status')).toHaveText('Unknown status 77')
  await expect(story.getByTestId('story-meaning')).toHaveText(
    'The service reported a status this app does not know. Check with the service what it means.'
  )
  await expect(story.getByTestId('story-status-number')).toHaveCount(0)
  await look(page, 'unknown-status-960')
})
