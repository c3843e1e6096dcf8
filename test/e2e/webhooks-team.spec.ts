// Replacing the webhook URL on a Team profile, as the hub's admin does from the keyboard:
// the form shows the URL now set through the hub and the new one side by side, then main
// asks (the typed code of the browser harness; a native dialog on the desktop) naming both,
// even for a hub on its sandbox, since the hub's receiver is the whole team's; once done,
// the card names the URL it replaced. Cancelled, nothing changes, and the refusal goes as
// the URL is edited. Read at 1280x800 and 960x600.
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { createHub, type Hub } from '../../src/hub/hub'
import { startHubServer, type HubServer } from '../../src/hub/hub-server'
import { layoutProblems } from './layout'
import { navigate, newTeamProfile, openView, startApp, type E2eApp } from './harness'

let e: E2eApp
let hub: Hub
let server: HubServer
let hubDir: string

test.beforeAll(async () => {
  hubDir = await mkdtemp(join(tmpdir(), 'rampdesk-e2e-team-hook-'))
  // A hub on its own sandbox: its receiver is still the team's, so the change is asked for.
  hub = await createHub({
    dataDir: hubDir,
    version: '0.0.0-e2e',
    merchant: { kind: 'sandbox', sandbox: { orders: 20, seed: 3, autoGenerate: false } },
    logWrite: () => undefined
  })
  server = await startHubServer({ hub, port: 0 })
  e = await startApp({ orders: 20 })
})
test.afterAll(async () => {
  await e?.close()
  await server?.close()
  await hub?.close()
  if (hubDir) await rm(hubDir, { recursive: true, force: true })
})

async function look(page: Page, name: string): Promise<void> {
  const dir = resolve('test-results/screenshots/webhooks')
  await mkdir(dir, { recursive: true })
  await page.screenshot({ path: resolve(dir, `${name}.png`), animations: 'disabled' })
}

async function readable(page: Page, what: string): Promise<void> {
  await page.waitForTimeout(200)
  expect(await layoutProblems(page), what).toEqual([])
}

/** Types the code main showed outside the window and presses Enter, as an operator does. */
async function typeCode(page: Page): Promise<void> {
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByTestId('confirm-code')).toBeFocused()
  await page.keyboard.type(e.confirmationCode() ?? '')
  await page.keyboard.press('Enter')
  await expect(dialog).toHaveCount(0)
}

test('an admin sees the URL now set and the new one, is asked naming both, and is told which URL was replaced', async ({ page }) => {
  const admin = await hub.operators.add('ada', 'admin')
  await openView(page, e, 'settings')
  await newTeamProfile(page, 'Hook desk', server.url)
  await page.getByTestId('secret-input').fill(admin.token)
  await page.getByRole('button', { name: 'Store token' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('The operator token is stored', { timeout: 15_000 })
  await page.getByRole('button', { name: 'Switch to Hook desk' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('TEAM', { timeout: 15_000 })
  await navigate(page, 'webhooks')

  const form = page.getByRole('form', { name: 'Webhook URL at the service' })
  await expect(form.getByTestId('production-change')).toContainText('Team change.')
  const now = form.getByTestId('replaced-url').locator('dd').first()
  await expect(now).toHaveText('not known: none was set through the team hub on this profile')
  const first = 'http://127.0.0.1:1/team-hook-a'
  const second = 'http://127.0.0.1:1/team-hook-b'

  // The first change: asked, with the URL it replaces not known.
  await form.getByRole('textbox', { name: 'URL' }).focus()
  await page.keyboard.type(first)
  await expect(form.getByTestId('new-url')).toHaveText(first)
  await page.keyboard.press('Enter')
  const dialog = page.getByRole('dialog')
  await expect(dialog).toContainText("Change the team hub's webhook URL")
  await expect(dialog).toContainText(`will send the webhooks of every order to ${first}`)
  await expect(dialog).toContainText('The URL it replaces is not known: none was set through the hub.')
  await typeCode(page)
  await expect(form.getByRole('status')).toHaveText(
    `Set to ${first}. The URL it replaced is not known: none was set through the team hub before.`,
    { timeout: 15_000 }
  )
  await expect(now).toContainText(first)

  // The second: the form shows both, main asks naming both, the card names the one replaced.
  const field = form.getByRole('textbox', { name: 'URL' })
  await field.fill('')
  await page.keyboard.type(second)
  await expect(now).toContainText(first)
  await expect(form.getByTestId('new-url')).toHaveText(second)
  await look(page, 'team-old-and-new-1280')
  await page.keyboard.press('Enter')
  await expect(dialog).toContainText(`It replaces ${first}`)
  await expect(dialog).toContainText(second)
  await look(page, 'team-asked-1280')
  await typeCode(page)
  await expect(form.getByRole('status')).toHaveText(`Set to ${second}; it replaced ${first}.`, { timeout: 15_000 })
  await expect(now).toContainText(second)
  await readable(page, 'after the change at 1280x800')

  // Cancelled from the keyboard: the hub keeps the URL; focus is back in the field, which
  // takes the next keys at once, and the refusal goes as the URL is edited.
  await field.fill('http://127.0.0.1:1/team-hook-c')
  await page.keyboard.press('Enter')
  await expect(dialog).toContainText(`It replaces ${second}`)
  await page.keyboard.press('Tab')
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(form.getByRole('alert')).toContainText('not confirmed')
  await expect(field).toBeFocused()
  expect((await hub.session().store.audit.list({ action: 'webhook.setUrl', limit: 1 })).rows[0]?.detail.url).toBe(second)
  await page.setViewportSize({ width: 960, height: 600 })
  await readable(page, 'the refusal at 960x600')
  await look(page, 'team-cancelled-960')
  await page.keyboard.press('End')
  await page.keyboard.type('x')
  await expect(field).toHaveValue('http://127.0.0.1:1/team-hook-cx')
  await expect(form.getByRole('alert')).toHaveCount(0)
  await expect(form.getByTestId('new-url')).toHaveText('http://127.0.0.1:1/team-hook-cx')
  await readable(page, 'old and new at 960x600')
  await look(page, 'team-old-and-new-960')
})
