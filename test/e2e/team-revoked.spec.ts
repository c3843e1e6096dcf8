// A revoked operator on a team hub: the tray at 360x480 says
// it once (not in its headline, its detail and a gap, and again in an error), in plain
// words; the orders view's Export is disabled and says why, rather than failing when
// pressed.
import { expect, test, type Page } from '@playwright/test'
import { layoutProblems } from './layout'
import { navigate, newTeamProfile, openView, startApp, type E2eApp } from './harness'
import { startTeamHub, type E2eTeamHub } from './team-hub'

let e: E2eApp
let team: E2eTeamHub
let hub: E2eTeamHub['hub']
let server: E2eTeamHub['server']

test.beforeAll(async () => {
  team = await startTeamHub({ orders: 300, seed: 9 })
  ;({ hub, server } = team)
  e = await startApp({ orders: 20 })
})
test.afterAll(async () => {
  await e?.close()
  await team?.close()
})

async function joinTeam(page: Page, name: string, token: string): Promise<void> {
  await navigate(page, 'settings')
  await newTeamProfile(page, name, server.url)
  await page.getByTestId('secret-input').fill(token)
  await page.getByRole('button', { name: 'Store token' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('The operator token is stored', { timeout: 15_000 })
  await page.getByRole('button', { name: `Switch to ${name}` }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('TEAM')
}

test("a revoked viewer's tray says it once, in plain words, and Export says why it cannot be pressed", async ({ page, context }) => {
  test.setTimeout(120_000)
  const token = (await hub.operators.add('vera', 'viewer')).token
  const admin = (await hub.operators.add('root-vera', 'admin')).token
  await openView(page, e, 'settings')
  await joinTeam(page, 'Team vera', token)
  await navigate(page, 'orders')
  await expect(page.locator('tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
  const exportButton = page.getByTestId('export-csv')
  await expect(exportButton).toBeEnabled()
  await expect(page.getByTestId('export-why')).toHaveCount(0)

  const tray = await context.newPage()
  await tray.setViewportSize({ width: 360, height: 480 })
  await openView(tray, e, 'tray')
  await expect(tray.getByTestId('tray-state')).toBeVisible({ timeout: 20_000 })

  const r = await fetch(`${server.url}/rpc/team:revokeOperator`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'vera' })
  })
  expect(r.status).toBe(200)

  // The tray: once.
  await expect(tray.getByTestId('tray-state')).toContainText("Your access was revoked: ask your team's admin", { timeout: 20_000 })
  await tray.reload()
  await expect(tray.getByTestId('tray-state')).toContainText("Your access was revoked: ask your team's admin", { timeout: 20_000 })
  await tray.waitForTimeout(1000)
  const text = await tray.locator('body').innerText()
  expect(text.match(/revoked/gi) ?? [], text).toHaveLength(1)
  expect(text).toContain('Store the new operator token in Settings → Credentials.')
  expect(text).not.toMatch(/refused this desktop|operator token is unknown|whether every order is here|\(401\)|sync:state/)
  await expect(tray.getByRole('alert')).toHaveCount(0)
  expect(await layoutProblems(tray), 'the revoked tray at 360x480').toEqual([])
  await tray.screenshot({ path: 'test-results/screenshots/tray-revoked.png' })
  await tray.close()

  // Export: disabled, with the reason beside it.
  await expect(exportButton).toBeDisabled({ timeout: 20_000 })
  await expect(page.getByTestId('export-why')).toHaveText('Export needs access to the team hub: yours was revoked')
  await expect(exportButton).toHaveAccessibleDescription('Export needs access to the team hub: yours was revoked')
  for (const size of [
    { width: 1280, height: 800 },
    { width: 960, height: 600 }
  ]) {
    await page.setViewportSize(size)
    await expect.poll(() => layoutProblems(page), { message: `the revoked orders view at ${size.width}x${size.height}` }).toEqual([])
  }
  await page.screenshot({ path: 'test-results/screenshots/orders-revoked-960.png' })
  await navigate(page, 'settings')
  await page.getByRole('button', { name: 'Switch to Sandbox' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('SANDBOX')
})
