// What an operator types into the credentials form stays there while the form around it
// renders again: the status of the secret arriving late, or the profile list reloading.
import { expect, test } from '@playwright/test'
import { newTeamProfile, openView, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp({ orders: 20 })
})
test.afterAll(async () => {
  await e?.close()
})

test('a token typed while the status of the secret loads is kept', async ({ page }) => {
  await openView(page, e, 'settings')
  let release: () => void = () => undefined
  const held = new Promise<void>((r) => (release = r))
  await page.route('**/rpc/secrets:status', async (route) => {
    await held
    await route.continue()
  })
  await newTeamProfile(page, 'Typed team', 'http://127.0.0.1:9')
  await page.getByTestId('secret-input').pressSequentially('operator-token-123')
  release()
  await expect(page.getByTestId('secret-status')).toContainText('No operator token stored')
  await expect(page.getByTestId('secret-input')).toHaveValue('operator-token-123')
  await expect(page.getByRole('button', { name: 'Store token' })).toBeEnabled()
})

test('a token being typed survives a profile switch made elsewhere (the tray, another window)', async ({ page }) => {
  await openView(page, e, 'settings')
  await page.evaluate(async () => {
    const body = JSON.stringify({ kind: 'team', name: 'Other team', baseUrl: 'http://127.0.0.1:9' })
    const r = await fetch('/rpc/profiles:create', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
    if (!r.ok) throw new Error(await r.text())
  })
  await page.reload()
  await page.getByRole('button', { name: 'Credentials of Other team' }).click()
  await expect(page.getByRole('heading', { name: 'Credentials of “Other team”' })).toBeVisible()
  await page.getByTestId('secret-input').pressSequentially('operator-token-456')
  // Another window switches the active profile (here: the sandbox again): every view follows it.
  const relisted = page.waitForRequest('**/rpc/profiles:list')
  await page.evaluate(async () => {
    const r = await fetch('/rpc/profiles:switch', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"id":"sandbox"}'
    })
    if (!r.ok) throw new Error(await r.text())
  })
  // The view followed the switch (it read the profile list again)...
  await relisted
  await page.waitForTimeout(500)
  // ...and the form still holds what was typed, for the profile it was typed for.
  await expect(page.getByRole('heading', { name: 'Credentials of “Other team”' })).toBeVisible()
  await expect(page.getByTestId('secret-input')).toHaveValue('operator-token-456')
  await expect(page.getByRole('button', { name: 'Store token' })).toBeEnabled()
})
