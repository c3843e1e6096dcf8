// Numbers, money and dates follow the operator's locale: the browser's
// language in the harness (the OS locale through app:info in Electron). The same orders
// and the same quote in en-IN and en-US: lakh grouping (1,00,000.00 INR) against
// thousands (100,000.00 INR), day-first dates against month-first.
import { expect, test } from '@playwright/test'
import type { OrderRow } from '../../src/shared/ipc/contract'
import { openView, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
})
test.afterAll(async () => {
  await e?.close()
})

/** The last three digits, then pairs: the Indian grouping, written out by hand rather than by Intl. */
const lakhs = (digits: string) => {
  const head = digits.slice(0, -3)
  return (head ? head.replace(/\B(?=(\d{2})+$)/g, ',') + ',' : '') + digits.slice(-3)
}
const thousands = (digits: string) => digits.replace(/\B(?=(\d{3})+$)/g, ',')

const LOCALES = {
  'en-IN': {
    group: lakhs,
    lakh: '1,00,000.00 INR',
    date: (d: string, m: string, y: string) => `${d}/${m}/${y}`,
    clock: /\d{2}:\d{2}:\d{2}\s?(am|pm)$/,
    /** The column's short form: day first, the month by name. */
    short: (d: string, mon: string) => new RegExp(`^${Number(d)} ${mon}(, \\d{4}|, \\d{2}:\\d{2}\\s?(am|pm))$`)
  },
  'en-US': {
    group: thousands,
    lakh: '100,000.00 INR',
    date: (d: string, m: string, y: string) => `${m}/${d}/${y}`,
    clock: /\d{2}:\d{2}:\d{2}\s?(AM|PM)$/,
    /** The column's short form: month first, by name. */
    short: (d: string, mon: string) => new RegExp(`^${mon} ${Number(d)}(, \\d{4}|, \\d{2}:\\d{2}\\s?(AM|PM))$`)
  }
} as const

/** The text as a pattern, any space matching the no-break space between an amount and its unit. */
const pattern = (text: string) => text.replace(/[.]/g, '\\.').replace(/ /g, '\\s')

/** An INR onramp order of at least a lakh, whose amount the two locales group differently. */
async function bigInrOrder(): Promise<OrderRow> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await e.app.services.handlers['orders:query']({
      filter: { type: 1, fiatType: 1 },
      sort: 'updatedAt:desc',
      offset: 0,
      limit: 1000
    })
    const big = rows.find((r) => r.fiatAmount !== null && /^\d{6,}(\.|$)/.test(r.fiatAmount))
    if (big) return big
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error('the sandbox made no INR onramp order of a lakh or more')
}

for (const [locale, want] of Object.entries(LOCALES)) {
  test.describe(locale, () => {
    test.use({ locale })

    test(`orders show amounts and dates as ${locale} writes them`, async ({ page }) => {
      await openView(page, e, 'orders')
      const order = await bigInrOrder()
      await page.getByRole('searchbox', { name: 'Search' }).fill(String(order.orderId))
      const row = page.locator(`tbody tr[data-order="${order.orderId}"]`)
      await expect(row).toBeVisible({ timeout: 30_000 })
      const whole = order.fiatAmount!.split('.')[0]!
      await expect(row.locator('td').nth(2)).toHaveText(new RegExp(`^${want.group(whole)}\\.\\d{2}\\sINR$`))

      const at = new Date(order.updatedAt)
      const p = (n: number) => String(n).padStart(2, '0')
      const updated = row.locator('td').last()
      // The whole instant in its title, the column's width of it in the cell, both as the locale writes them.
      await expect(updated).toHaveAttribute('title', new RegExp(want.date(p(at.getDate()), p(at.getMonth() + 1), String(at.getFullYear()))))
      await expect(updated).toHaveAttribute('title', want.clock)
      const month = at.toLocaleString('en-US', { month: 'short' })
      await expect(updated).toHaveText(want.short(p(at.getDate()), month))
    })

    test(`a quote of a lakh of rupees reads ${want.lakh}`, async ({ page }) => {
      await openView(page, e, 'quote')
      const amount = page.getByRole('textbox', { name: /Amount to pay \(INR\)/ })
      await expect(amount).toBeVisible()
      await amount.fill('100000')
      const result = page.getByTestId('quote-result')
      await expect(result.getByTestId('quote-for')).toHaveText(new RegExp(`^For\\s+${pattern(want.lakh)}\\s*$`), {
        timeout: 15_000
      })
      await expect(result.getByRole('row', { name: /Customer pays/ })).toContainText(new RegExp(pattern(want.lakh)))
      // The operator may type the amount grouped as they write it.
      await amount.fill(locale === 'en-IN' ? '1,00,000' : '100,000')
      await expect(page.getByTestId('amount-error')).toHaveCount(0)
      await expect(result.getByTestId('quote-not-current')).toHaveCount(0)
    })
  })
}
