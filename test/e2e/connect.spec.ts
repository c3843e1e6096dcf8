// "Connect to the live service" against the embedded simulator as the
// live service: each failure an operator meets on the first run (network, wrong service
// name, unknown key, wrong secret, clock) explained with what to do and the field to fix,
// then the working settings tested, saved and switched to.
import { expect, test, type Page } from '@playwright/test'
import { openView, shot, startApp, type E2eApp } from './harness'

let e: E2eApp
let sandbox: { url: string; apiKey: string; apiSecret: string; serviceName: string }

test.beforeAll(async () => {
  e = await startApp()
  const sb = e.app.services.sandbox()!
  sandbox = { url: sb.url, apiKey: sb.apiKey, apiSecret: sb.apiSecret, serviceName: sb.serviceName }
})
test.afterAll(async () => {
  await e?.close()
})

async function fill(page: Page, v: { baseUrl?: string; serviceName?: string; apiKey?: string; secret?: string }) {
  const form = page.getByRole('form', { name: 'Connect to the live service' })
  if (v.baseUrl !== undefined) await form.getByRole('textbox', { name: 'Base URL' }).fill(v.baseUrl)
  if (v.serviceName !== undefined) await form.getByRole('textbox', { name: 'Service name' }).fill(v.serviceName)
  if (v.apiKey !== undefined) await form.getByRole('textbox', { name: 'API key' }).fill(v.apiKey)
  if (v.secret !== undefined) await form.getByTestId('connect-secret').fill(v.secret)
}

async function testFails(page: Page, cause: string, title: string, field: string | null) {
  const form = page.getByRole('form', { name: 'Connect to the live service' })
  await form.getByRole('button', { name: 'Test the connection' }).click()
  const outcome = form.getByTestId('connect-result').getByRole('alert')
  await expect(outcome).toHaveAttribute('data-cause', cause, { timeout: 15_000 })
  await expect(outcome).toContainText(title)
  await expect(outcome).toContainText('What to do:')
  await expect(form.getByRole('button', { name: 'Save and switch' })).toBeDisabled()
  if (field) {
    await outcome.getByRole('button', { name: `Fix the ${field}` }).click()
    await expect(field === 'API secret' ? form.getByTestId('connect-secret') : form.getByRole('textbox', { name: field })).toBeFocused()
  }
}

test('each first-run failure is explained with what to do, then the live service is tested, saved and switched to', async ({ page }) => {
  await openView(page, e, 'settings')
  await page.getByRole('button', { name: 'Connect to the live service' }).click()
  const form = page.getByRole('form', { name: 'Connect to the live service' })
  await expect(form).toBeVisible()
  const port = new URL(sandbox.url).port

  // Nothing listens there.
  await fill(page, { baseUrl: 'http://127.0.0.1:9', serviceName: sandbox.serviceName, apiKey: sandbox.apiKey, secret: sandbox.apiSecret })
  await testFails(page, 'network', 'Rampdesk cannot reach the service', 'Base URL')
  await expect(form.getByTestId('connect-result')).toContainText('Nothing accepts connections at 127.0.0.1:9')

  // The right address, the wrong service name.
  await fill(page, { baseUrl: sandbox.url, serviceName: 'recon' })
  await testFails(page, 'service_name', 'The service does not know these addresses', 'Service name')
  await expect(form.getByTestId('connect-result')).toContainText('X-RECON-APIKEY')

  // A key the service does not know.
  await fill(page, { serviceName: sandbox.serviceName, apiKey: 'rampdesk-live-key-typo' })
  await testFails(page, 'bad_key', 'The service does not accept this API key', 'API key')

  // The key with the wrong secret.
  await fill(page, { apiKey: sandbox.apiKey, secret: 'a-secret-cut-short' })
  await testFails(page, 'bad_signature', 'The API secret does not match the key', 'API secret')
  await shot(page, 'connect-failure')

  // The service's clock two minutes behind this computer's, and no way to learn it (no Date
  // header, no currentTimestamp; with either, the client corrects itself and the test passes).
  await fill(page, { secret: sandbox.apiSecret })
  e.control.setClockOffset(-120_000)
  e.control.setReadings({ dateHeader: false, currentTimestamp: false })
  try {
    await testFails(page, 'clock', "This computer's clock is off", null)
    await expect(form.getByTestId('connect-result')).toContainText('set time automatically')
  } finally {
    e.control.setClockOffset(0)
    e.control.setReadings({ dateHeader: true, currentTimestamp: true })
  }

  // Everything right: connected, then saved and switched to.
  await form.getByRole('button', { name: 'Test the connection' }).click()
  await expect(form.getByTestId('connect-result').getByRole('status')).toContainText('Connected', { timeout: 15_000 })
  await expect(form.getByTestId('connect-result')).toContainText(`127.0.0.1:${port} answered`)
  // A change after the test asks for a new one before anything is saved.
  await fill(page, { apiKey: `${sandbox.apiKey}x` })
  await expect(form.getByRole('button', { name: 'Save and switch' })).toBeDisabled()
  await expect(form).toContainText('Changed since the test: test again.')
  await fill(page, { apiKey: sandbox.apiKey })
  await form.getByRole('button', { name: 'Test the connection' }).click()
  await expect(form.getByTestId('connect-result').getByRole('status')).toContainText('Connected', { timeout: 15_000 })
  await form.getByRole('textbox', { name: 'Profile name' }).fill('Live desk')
  await form.getByRole('button', { name: 'Save and switch' }).click()

  await expect(page.getByTestId('connected')).toContainText('Switched to “Live desk”', { timeout: 20_000 })
  await expect(page.getByTestId('profile-kind')).toHaveText('LIVE')
  const { profiles, activeId } = await e.app.services.handlers['profiles:list']({})
  const live = profiles.find((p) => p.id === activeId)!
  expect(live).toMatchObject({ name: 'Live desk', kind: 'live', baseUrl: sandbox.url, apiKey: sandbox.apiKey })
  expect((await e.app.services.handlers['secrets:status']({ profileId: live.id })).has).toBe(true)
  // The live profile syncs from the service it was tested against.
  await expect
    .poll(async () => (await e.app.services.handlers['sync:state']({})).states.some((s) => s.lastSuccessAt !== null), { timeout: 30_000 })
    .toBe(true)
})
