// Going live in npm run web on a machine with no keychain and no encrypted store: after a
// green "Connected" the form says before saving where the secret would go, here nowhere,
// and offers what helps (plain-text storage, confirmed with the code shown outside the
// window); once allowed, the secret really is stored, marked as plain text, and the live
// profile works. A Team profile's operator token is stored the same way, and named so.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { newTeamProfile, openView, startApp, type E2eApp } from './harness'

let e: E2eApp

test.use({ viewport: { width: 1280, height: 800 } })

test.beforeAll(async () => {
  e = await startApp({ noKeychain: true })
})
test.afterAll(async () => {
  await e?.close()
})

async function confirmWithCode(page: Page): Promise<void> {
  const dialog = page.getByRole('dialog')
  await expect(dialog).toBeVisible()
  await dialog.getByTestId('confirm-code').fill(e.confirmationCode() ?? '')
  await dialog.locator('button[type="submit"]').click()
  await expect(dialog).toBeHidden()
}

test('connecting to the live service without a keychain says where the secret goes, offers plain text, and works', async ({ page }) => {
  const sb = e.app.services.sandbox()!
  await openView(page, e, 'settings')
  await page.getByRole('button', { name: 'Connect to the live service' }).click()
  const form = page.getByRole('form', { name: 'Connect to the live service' })
  await form.getByRole('textbox', { name: 'Base URL' }).fill(sb.url)
  await form.getByRole('textbox', { name: 'Service name' }).fill(sb.serviceName)
  await form.getByRole('textbox', { name: 'API key' }).fill(sb.apiKey)
  await form.getByTestId('connect-secret').fill(sb.apiSecret)
  await form.getByRole('button', { name: 'Test the connection' }).click()
  await expect(form.getByTestId('connect-result').getByRole('status')).toContainText('Connected', { timeout: 15_000 })

  // Before saving: nowhere to store it, why, and what helps; saving is not offered to fail.
  const where = form.getByTestId('secret-where')
  await expect(where).toHaveAttribute('data-backend', 'none')
  await expect(where).toContainText('cannot be stored here yet: no OS keychain answers here')
  await expect(form.getByRole('button', { name: 'Save and switch' })).toBeDisabled()

  // Allowing plain text is confirmed with the code main prints outside the window (by keyboard).
  await where.getByRole('button', { name: 'Allow plain-text storage' }).focus()
  await page.keyboard.press('Enter')
  await confirmWithCode(page)
  await expect(where).toHaveAttribute('data-backend', 'plaintext')
  await expect(where).toContainText('not encrypted')
  await expect(where).toContainText('plain-text file')

  await form.getByRole('textbox', { name: 'Profile name' }).fill('Live, no keychain')
  await form.getByRole('button', { name: 'Save and switch' }).click()
  await expect(page.getByTestId('connected')).toContainText('Switched to “Live, no keychain”', { timeout: 20_000 })
  await expect(page.getByTestId('profile-kind')).toHaveText('LIVE')
  await expect(page.getByRole('alert').filter({ hasText: 'Could not connect' })).toHaveCount(0)

  const { activeId } = await e.app.services.handlers['profiles:list']({})
  expect(await e.app.services.handlers['secrets:status']({ profileId: activeId })).toMatchObject({
    has: true,
    backend: 'plaintext',
    plaintextWarning: true
  })
  // The file holds it in the clear and says so, for whoever opens it.
  const file = JSON.parse(await readFile(join(e.app.dataDir, 'secrets', `${activeId}.bin`), 'utf8')) as Record<string, string>
  expect(file.backend).toBe('plain')
  expect(file.warning).toMatch(/^NOT ENCRYPTED/)
  // And the live profile works: it signs and syncs.
  await expect
    .poll(async () => (await e.app.services.handlers['sync:state']({})).states.some((s) => s.lastSuccessAt !== null), { timeout: 30_000 })
    .toBe(true)

  // Its credentials say where the secret is.
  await page.getByRole('button', { name: 'Credentials of Live, no keychain' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('PLAIN-TEXT file')
  await expect(page.getByTestId('secret-status')).toContainText('stored without encryption')
})

test("a Team profile's operator token is stored the same way, and called a token", async ({ page }) => {
  await openView(page, e, 'settings')
  await newTeamProfile(page, 'Team desk', 'http://127.0.0.1:9')
  const where = page.getByTestId('secret-where')
  await expect(where).toContainText('The operator token will be stored in a plain-text file')
  await expect(where).not.toContainText('secret')
  await page.getByTestId('secret-input').fill('rd_op_0123456789abcdef')
  await page.getByRole('button', { name: 'Store token' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('The operator token is stored in a PLAIN-TEXT file', { timeout: 10_000 })
  expect(await readdir(join(e.app.dataDir, 'secrets'))).toHaveLength(2)
})
