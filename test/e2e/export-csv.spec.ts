// CSV for finance, as an operator makes it at 1280x800 and 960x600, by keyboard: Export CSV
// writes headers in words with a currency column after every amount and the status and
// payment type in words beside their numbers, and the browser harness hands the file over
// as a download; the options put onramp and offramp in one file, or keep the API names for
// scripts, and are remembered.
import { readFile } from 'node:fs/promises'
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { openView, startApp, type E2eApp } from './harness'
import { parseCsv } from '../support/csv-reader'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp({ orders: 600 })
})
test.afterAll(async () => {
  await e?.close()
})

async function look(page: Page, name: string): Promise<void> {
  const dir = resolve('test-results/words')
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, `${name}.png`), await page.screenshot({ animations: 'disabled' }))
}

/** Presses Enter on the element, as an operator who tabbed to it does. */
async function press(page: Page, testId: string): Promise<void> {
  await page.getByTestId(testId).focus()
  await page.keyboard.press('Enter')
}

/** Downloads the export the result line offers and answers its header and rows by header. */
async function download(page: Page): Promise<{ header: string[]; rows: Array<Record<string, string>>; name: string }> {
  const link = page.getByTestId('export-download')
  await expect(link).toBeVisible({ timeout: 30_000 })
  const [file] = await Promise.all([page.waitForEvent('download'), link.focus().then(() => page.keyboard.press('Enter'))])
  const text = await readFile((await file.path())!, 'utf8')
  expect(text.startsWith('\uFEFF')).toBe(true)
  const [header, ...rows] = parseCsv(text.slice(1))
  return { header: header!, rows: rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!]))), name: file.suggestedFilename() }
}

for (const size of [
  { width: 1280, height: 800 },
  { width: 960, height: 600 }
]) {
  test.describe(`at ${size.width}x${size.height}`, () => {
    test.use({ viewport: size })

    test('Export CSV: headers in words, every amount with its currency, a download in the browser', async ({ page }) => {
      await openView(page, e, 'orders')
      await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
      await page.evaluate(() => (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear())
      await page.reload()
      await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
      const total = Number((await page.getByTestId('orders-total').textContent())!.replace(/\D/g, ''))

      await press(page, 'export-csv')
      await expect(page.getByTestId('export-result')).toContainText(`Exported ${total.toLocaleString('en-US')} orders to rampdesk-onramp-`)
      // The browser harness downloads; the desktop's Open and Show in folder are not offered here.
      await expect(page.getByTestId('export-open')).toHaveCount(0)
      await look(page, `export-${size.width}`)
      const { header, rows, name } = await download(page)
      expect(name).toMatch(/^rampdesk-onramp-.*\.csv$/)
      expect(rows).toHaveLength(total)
      expect(header.slice(0, 9)).toEqual([
        'Type',
        'Order id',
        'Merchant reference',
        'Created',
        'Last updated',
        'Status',
        'Status number',
        'Payment type',
        'Payment type number'
      ])
      for (const h of header) expect(h).not.toMatch(/^[a-z]+[A-Z]/)
      const r = rows.find((x) => x['Network fee'] !== '')!
      expect(r['Customer pays currency']).toBe(r['Fiat'])
      expect(r['Network fee currency']).toBe(r['Coin'])
      expect(r['Platform fee currency']).toBe(r['Fiat'])
      expect(r['Price quoted currency']).toBe(`${r['Fiat']} per ${r['Coin']}`)
      expect(r['Status']).not.toMatch(/webhook|\(\d+\)/i)
      expect(r['Payment type']).toMatch(/UPI|bank transfer/)
    })

    test('the options, by keyboard: both types in one file, or the API names for scripts, remembered', async ({ page }) => {
      await openView(page, e, 'orders')
      await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
      await page.evaluate(() => (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear())

      await press(page, 'export-options')
      const panel = page.getByTestId('export-options-panel')
      await expect(panel).toBeVisible()
      await page.keyboard.press('Tab')
      await expect(panel.getByTestId('export-both')).toBeFocused()
      await page.keyboard.press('Space')
      await expect(panel).toContainText('Both order types matching the filters')
      await look(page, `export-options-${size.width}`)
      await page.keyboard.press('Escape')
      await expect(panel).toBeHidden()
      await expect(page.getByTestId('export-options')).toBeFocused()

      await press(page, 'export-csv')
      await expect(page.getByTestId('export-result')).toContainText('(onramp and offramp) to rampdesk-orders-')
      const both = await download(page)
      expect(new Set(both.rows.map((r) => r['Type']))).toEqual(new Set(['Onramp', 'Offramp']))
      const sell = both.rows.find((r) => r['Type'] === 'Offramp' && r['TDS (1% tax)'] !== '')!
      expect(sell['Customer pays']).toBe('')
      expect(sell['TDS (1% tax) currency']).toBe(sell['Fiat'])
      // Oldest change first across both types.
      const times = both.rows.map((r) => r['Last updated']!)
      expect([...times].sort()).toEqual(times)

      // The API names for scripts; the other option stays as it was chosen, after a reload too.
      await page.reload()
      await expect(page.locator('tbody tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
      await press(page, 'export-options')
      await expect(page.getByTestId('export-both')).toBeChecked()
      await page.getByTestId('export-api-names').focus()
      await page.keyboard.press('Space')
      await page.keyboard.press('Escape')
      await press(page, 'export-csv')
      const api = await download(page)
      expect(api.header.slice(0, 6)).toEqual(['orderId', 'merchantRecognitionId', 'createdAt', 'updatedAt', 'status', 'statusLabel'])
      expect(api.header).toContain('gasFeeCurrency')
      expect(api.header).toContain('tdsFeeCurrency')
      expect(new Set(api.rows.map((r) => r['typeLabel']))).toEqual(new Set(['Onramp', 'Offramp']))
    })
  })
}
