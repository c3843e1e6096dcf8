// "Since you were here" on a Team profile, as an operator meets it: ana looks at the orders,
// leaves the window (it is hidden, for three minutes of the window's clock: an absence under
// two is none); meanwhile an order fails at the service and ben notes
// another order through the hub. When ana's window is shown again, one summary says so in
// words ("1 order failed, 1 note"), each line a link that opens the order's detail; her own
// note is not in it; dismissing clears it, and it stays cleared after a reload. Looked at
// 1280x800 and 960x600.
import { mkdir } from 'node:fs/promises'
import { expect, test, type Page } from '@playwright/test'
import { newTeamProfile, openView, startApp, type E2eApp } from './harness'
import { startTeamHub, type E2eTeamHub } from './team-hub'

let e: E2eApp
let team: E2eTeamHub

async function snap(page: Page, name: string): Promise<void> {
  await mkdir('test-results/since', { recursive: true })
  await page.screenshot({ path: `test-results/since/${name}.png`, animations: 'disabled' })
}
/** The window hidden or shown again, as when the operator switches to another window and back. */
async function visibility(page: Page, state: 'hidden' | 'visible'): Promise<void> {
  await page.evaluate((s) => {
    const doc = (globalThis as unknown as { document: EventTarget }).document
    Object.defineProperty(doc, 'visibilityState', { value: s, configurable: true })
    doc.dispatchEvent(new Event('visibilitychange'))
  }, state)
}

test.beforeAll(async () => {
  team = await startTeamHub({ orders: 30, seed: 21 })
  team.sandbox.control.stopGenerator()
  e = await startApp({ orders: 20 })
})
test.afterAll(async () => {
  await e?.close()
  await team?.close()
})

test('a failure and a teammate’s note made while away are summarised, link to their orders, and stay dismissed', async ({ page }) => {
  const { hub, server, sandbox } = team
  const admin = await hub.operators.add('root', 'admin')
  const ana = await hub.operators.add('ana', 'operator')
  const ben = await hub.operators.add('ben', 'operator')
  const failing = sandbox.control.createOrder({ type: 2, fiatType: 1, path: 'timed out', hold: true }).orderId
  const noted = sandbox.control.createOrder({ type: 1, fiatType: 1, path: 'completed', hold: true }).orderId
  const asAdmin = hub.handlersFor(admin.operator)
  const held = async (type: 1 | 2, orderId: number) => (await asAdmin['orders:get']({ type, orderId }))?.row.status
  await asAdmin['sync:now']({})
  await expect.poll(async () => [await held(2, failing), await held(1, noted)], { timeout: 20_000 }).toEqual([0, 0])

  // The window's clock, so that the absence lasts minutes without the test waiting them.
  await page.clock.install()
  await openView(page, e, 'settings')
  await newTeamProfile(page, 'Since desk', server.url)
  await page.getByTestId('secret-input').fill(ana.token)
  await page.getByRole('button', { name: 'Store token' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('The operator token is stored', { timeout: 15_000 })
  const firstLook = page.waitForResponse((r) => r.url().includes('/rpc/activity:seen'))
  await page.getByRole('button', { name: 'Switch to Since desk' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('TEAM', { timeout: 15_000 })
  // The first look on this desktop only starts counting: nothing to say.
  await firstLook
  await expect(page.getByTestId('since-summary')).toHaveCount(0)

  // Away: the window hidden; the last look is kept.
  const left = page.waitForResponse((r) => r.url().includes('/rpc/activity:seen'))
  await visibility(page, 'hidden')
  await left
  await page.clock.fastForward('03:00')
  sandbox.control.advanceOrder(failing, -1, 2)
  await asAdmin['sync:now']({})
  await expect.poll(() => held(2, failing), { timeout: 20_000 }).toBe(-1)
  await hub.handlersFor(ben.operator)['orders:note']({ type: 1, orderId: noted, text: 'Customer sent the UTR by e-mail' })
  await hub.handlersFor(ana.operator)['orders:note']({ type: 1, orderId: noted, text: 'my own note, not news to me' })

  // Back: one summary.
  await visibility(page, 'visible')
  const summary = page.getByTestId('since-summary')
  await expect(summary).toBeVisible({ timeout: 10_000 })
  await expect(summary.getByRole('heading')).toContainText(/^Since you were here \(today \d{1,2}:\d{2}( [AP]M)?\):/)
  await expect(summary.getByTestId('since-headline')).toHaveText('1 order failed, 1 note')
  const items = summary.getByTestId('since-items')
  await expect(items.locator('li')).toHaveCount(2)
  await expect(items).toContainText(`Order ${failing} (offramp) failed: Timed out`)
  await expect(items).toContainText(`ben noted on order ${noted}: “Customer sent the UTR by e-mail”`)
  await expect(items).not.toContainText('my own note')
  await snap(page, 'summary-1280x800')
  await page.setViewportSize({ width: 960, height: 600 })
  const [box, view] = [await summary.boundingBox(), page.viewportSize()]
  expect(box!.x + box!.width).toBeLessThanOrEqual(view!.width)
  await snap(page, 'summary-960x600')
  await page.setViewportSize({ width: 1280, height: 800 })

  // Its link opens the order's detail.
  await items.getByRole('button', { name: `Order ${failing} (offramp) failed: Timed out` }).click()
  const detail = page.getByTestId('order-detail')
  await expect(detail).toBeVisible({ timeout: 10_000 })
  await expect(detail).toContainText(String(failing))
  await snap(page, 'summary-opened-order-1280x800')

  // Dismissed: gone, and still gone after a reload.
  await summary.getByRole('button', { name: 'Dismiss' }).click()
  await expect(summary).toHaveCount(0)
  const looked = page.waitForResponse((r) => r.url().includes('/rpc/activity:since') || r.url().includes('/rpc/activity:seen'))
  await page.reload()
  await looked
  await expect(page.getByTestId('profile-kind')).toHaveText('TEAM', { timeout: 15_000 })
  await page.waitForTimeout(500)
  await expect(page.getByTestId('since-summary')).toHaveCount(0)
})

test('on a Team profile the stalled thresholds are the team’s: an operator reads them and is told an admin changes them', async ({
  page
}) => {
  await openView(page, e, 'settings')
  const form = page.getByTestId('stalled-form')
  await expect(form).toContainText('These are the team’s: every desktop of the team uses the same.', { timeout: 15_000 })
  await expect(form.getByTestId('role-note')).toHaveText(
    'Changing the stalled thresholds needs the admin role on the team hub; ana is an operator.'
  )
  await expect(form.getByRole('textbox', { name: 'Offramp · Held for review' })).toBeDisabled()
  await expect(form.getByRole('textbox', { name: 'Offramp · Held for review' })).toHaveValue('30')
  await expect(form.getByRole('button', { name: 'Save thresholds' })).toHaveCount(0)
  await form.scrollIntoViewIfNeeded()
  await snap(page, 'thresholds-team-operator-1280x800')
})
