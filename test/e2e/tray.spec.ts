// The tray tells the state, through the contract the Electron tray
// uses (tray:state) and the popover that shows the same: orders needing attention with
// their count, listed first; the service unreachable called offline before anything else,
// and recovery. The icon and title glue is tested with electron mocked (test/electron).
import { expect, test, type Page } from '@playwright/test'
import { openView, shot, startApp, type E2eApp } from './harness'
import type { TrayState } from '../../src/shared/ipc/contract'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
  // No background churn: the list holds the 20 most recently moved orders per type, and the
  // spec looks for the one it moved.
  e.control.stopGenerator()
})
test.afterAll(async () => {
  e?.control.clearFaults()
  await e?.close()
})

/** tray:state as the Electron tray asks it: main's handler, in process. */
async function trayState(_page: Page): Promise<TrayState> {
  return e.app.services.handlers['tray:state']({})
}

const sync = () => e.app.services.session().monitor.syncNow()

test('orders needing attention are counted, told first and listed first', async ({ page }) => {
  await page.setViewportSize({ width: 420, height: 560 })
  await openView(page, e, 'tray')
  const order = e.control.createOrder({ type: 2, path: 'alternate bank', hold: true })
  e.control.advanceOrder(order.orderId, 17)
  // A sync already running when the order moved may miss it: sync until the database has it.
  await expect
    .poll(
      async () => {
        await sync()
        return e.app.services.session().store.orders.get(2, order.orderId)?.status
      },
      { timeout: 20_000 }
    )
    .toBe(17)

  const status = page.getByTestId('tray-state')
  await expect(status).toHaveAttribute('data-level', 'attention', { timeout: 15_000 })
  await expect(status).toContainText(/\d+ orders? needs? attention/)
  const state = await trayState(page)
  expect(state).toMatchObject({ level: 'attention', icon: 'attention' })
  expect(state.attention).toBeGreaterThanOrEqual(1)
  expect(state.tooltip).toContain(state.headline)
  expect(state.title).toBe(`${state.attention} need${state.attention === 1 ? 's' : ''} attention`)

  // The order is in the popover's list, and after the watched orders, everything needing
  // attention comes before the rest.
  const items = page.getByTestId('tray-orders').locator('li[data-order]:not([data-watched])')
  await expect(page.getByTestId('tray-orders').locator(`li[data-order="${order.orderId}"]`)).toHaveAttribute('data-attention', '', {
    timeout: 15_000
  })
  const flags = await items.evaluateAll((els) => els.map((el) => el.hasAttribute('data-attention')))
  expect(flags.indexOf(false) === -1 || flags.lastIndexOf(true) < flags.indexOf(false)).toBe(true)
})

test('an unreachable service is told before anything else, and the tray recovers', async ({ page }) => {
  await page.setViewportSize({ width: 420, height: 560 })
  await openView(page, e, 'tray')
  const status = page.getByTestId('tray-state')
  e.control.setFault('merchantHistory', { dropRate: 1 })
  try {
    await sync()
    await expect(status).toHaveAttribute('data-level', 'offline', { timeout: 15_000 })
    await expect(status).toContainText('Offline: orders are not updating')
    // Said once, in plain words: no library text, endpoint or budget.
    await expect(status).toContainText('The service cannot be reached; Rampdesk tries again by itself')
    await expect(page.locator('body')).not.toContainText(/ECONN|UND_ERR|socket|other side closed|merchantHistory|budget/i)
    await expect(page.getByText('Offline: orders are not updating')).toHaveCount(1)
    const state = await trayState(page)
    expect(state).toMatchObject({ level: 'offline', icon: 'error', title: 'Offline' })
    expect(state.tooltip).toMatch(/^Rampdesk · Offline: orders are not updating/)
    await shot(page, 'tray-offline')
  } finally {
    e.control.clearFaults()
  }
  await sync()
  await expect(status).not.toHaveAttribute('data-level', 'offline', { timeout: 15_000 })
  expect(['attention', 'progress', 'idle']).toContain((await trayState(page)).level)
})
