// Attacks on the browser harness, performed in a real Chromium, each seen refused: the
// session cookie never reaches another loopback server; a page of another local origin
// cannot change a setting; weakening a setting or setting a live profile's webhook URL
// needs the one-time code main shows outside the window (a wrong code and Cancel change
// nothing); and a base URL moved to another origin loses its secret, as the UI says.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, test, type Page } from '@playwright/test'
import { navigate, openView, shot, startApp, type E2eApp } from './harness'
import { startSandbox, type Sandbox } from '../../src/sandbox'

let e: E2eApp
let other: Server
let otherPort = 0
const seen: IncomingHttpHeaders[] = []
let live: Sandbox
const LIVE_SECRET = 'live-secret-for-e2e-0123456789'

test.beforeAll(async () => {
  e = await startApp({ orders: 200 })
  // Another server on loopback, as any local program (or a page it serves) could run.
  other = createServer((req, res) => {
    seen.push(req.headers)
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<!doctype html><title>other</title>')
  })
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r))
  otherPort = (other.address() as AddressInfo).port
  live = await startSandbox({ orders: 20, autoGenerate: false, apiKey: 'live-e2e-key', apiSecret: LIVE_SECRET })
})
test.afterAll(async () => {
  await e?.close()
  await new Promise<void>((r) => (other ? other.close(() => r()) : r()))
  await live?.close()
})

/** Types main's code into the confirmation dialog and confirms. */
async function confirmWithCode(page: Page, code: string | null): Promise<void> {
  const dialog = page.getByRole('dialog')
  await expect(dialog).toBeVisible()
  await dialog.getByTestId('confirm-code').fill(code ?? '')
  await dialog.locator('button[type="submit"]').click()
}

test('the session cookie is sent to no other loopback server, and a page there cannot change a setting', async ({ page }) => {
  await openView(page, e, 'settings')
  const cookies = await page.context().cookies()
  expect(cookies.map((c) => [c.name, c.domain, c.httpOnly, c.sameSite])).toEqual([
    ['rampdesk_session', new URL(e.app.url).hostname, true, 'Strict']
  ])
  expect(cookies[0]!.value).not.toBe(e.app.harness.token)

  for (const host of ['127.0.0.1', 'localhost']) {
    seen.length = 0
    await page.goto(`http://${host}:${otherPort}/`)
    expect(seen.length).toBeGreaterThan(0)
    for (const h of seen) expect(String(h.cookie ?? '')).not.toContain('rampdesk_session')
  }

  // From that page, a cross-site write attempt: no preflight-free request gets through.
  const before = await e.app.services.handlers['settings:get']({})
  const target = `${e.app.url}rpc/settings:update`
  const body = JSON.stringify({ theme: before.theme === 'dark' ? 'light' : 'dark' })
  await page.evaluate(
    async ([url, body]) => {
      await fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', body }).catch(() => undefined)
      await fetch(url, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body }).catch(
        () => undefined
      )
    },
    [target, body] as const
  )
  expect(await e.app.services.handlers['settings:get']({})).toEqual(before)
})

test('allowing plaintext secrets needs the code main shows outside the window; a wrong code and Cancel change nothing', async ({
  page
}) => {
  await openView(page, e, 'settings')
  const box = page.getByRole('checkbox', { name: /Allow storing secrets unencrypted/ })
  await expect(box).not.toBeChecked()

  // Cancel: nothing changes, and the box shows what is in force.
  await box.check()
  await expect(page.getByRole('dialog')).toContainText('Allow API secrets stored in plain text')
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
  await expect(page.getByRole('dialog')).toBeHidden()
  await expect(box).not.toBeChecked()
  expect((await e.app.services.handlers['settings:get']({})).allowPlaintextSecrets).toBe(false)
  // The window never held the code: not in the page, nor in any event it received.
  const code = e.confirmationCode()!
  expect(code).toMatch(/^\d{4}-\d{4}$/)
  expect(await page.content()).not.toContain(code)

  // A wrong code is refused and counted; the right one applies the change.
  await box.check()
  const fresh = e.confirmationCode()!
  expect(fresh).not.toBe(code)
  await confirmWithCode(page, fresh === '0000-0000' ? '1111-1111' : '0000-0000')
  await expect(page.getByRole('dialog').getByRole('alert')).toContainText('That is not the code. 2 attempts left.')
  await shot(page, 'settings-confirm-code')
  await confirmWithCode(page, fresh)
  await expect(page.getByRole('dialog')).toBeHidden()
  await expect(box).toBeChecked()
  expect((await e.app.services.handlers['settings:get']({})).allowPlaintextSecrets).toBe(true)
  const audit = await e.app.services.handlers['audit:list']({ limit: 20 })
  expect(
    audit.rows.filter((r) => r.action === 'security.confirmation').map((r) => [r.detail.change, r.detail.confirmed, r.detail.via])
  ).toEqual([
    ['allowPlaintextSecrets', true, 'typed code'],
    ['allowPlaintextSecrets', false, 'typed code']
  ])
  // Turning it off needs no code.
  await box.uncheck()
  await expect(box).not.toBeChecked()
  expect((await e.app.services.handlers['settings:get']({})).allowPlaintextSecrets).toBe(false)
})

test('a live profile: a new base URL origin deletes the secret (the form says so), and its webhook URL is a confirmed production change', async ({
  page
}) => {
  await openView(page, e, 'settings')
  await page.getByRole('button', { name: 'New live profile' }).click()
  let form = page.getByRole('form', { name: 'New profile' })
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('Prod')
  // Plain http to another computer is refused before anything is saved.
  await form.getByRole('textbox', { name: 'Base URL' }).fill('http://api.example.test')
  await expect(form.getByRole('alert')).toContainText('must use https')
  await form.getByRole('textbox', { name: 'API key' }).fill('live-e2e-key')
  await form.getByRole('button', { name: 'Save profile' }).click()
  await expect(page.getByRole('alert').filter({ hasText: 'must use https' }).first()).toBeVisible()
  await form.getByRole('textbox', { name: 'Base URL' }).fill(live.url)
  await form.getByRole('button', { name: 'Save profile' }).click()
  await expect(page.getByRole('heading', { name: 'Credentials of “Prod”' })).toBeVisible()
  await page.getByTestId('secret-input').fill(LIVE_SECRET)
  await page.getByRole('button', { name: 'Store secret' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('A secret is stored')

  // The same sandbox under another origin (localhost instead of 127.0.0.1): the form warns, saving deletes the secret.
  await page.getByRole('button', { name: 'Edit Prod' }).click()
  form = page.getByRole('form', { name: 'Edit profile' })
  const moved = live.url.replace('127.0.0.1', 'localhost')
  await form.getByRole('textbox', { name: 'Base URL' }).fill(moved)
  await expect(form.getByTestId('origin-warning')).toContainText('saving deletes this profile')
  await shot(page, 'settings-origin-change')
  await form.getByRole('button', { name: 'Save profile' }).click()
  await expect(page.getByTestId('profile-notice')).toContainText('its stored API secret was deleted')
  await expect(page.getByTestId('secret-status')).toContainText('No secret stored')
  await page.getByTestId('secret-input').fill(LIVE_SECRET)
  await page.getByRole('button', { name: 'Store secret' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('A secret is stored')

  await page.getByRole('button', { name: 'Switch to Prod' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('LIVE')
  await navigate(page, 'webhooks')
  const setForm = page.getByRole('form', { name: 'Webhook URL at the service' })
  await expect(setForm.getByTestId('production-change')).toContainText('Production change')
  await expect(setForm.getByTestId('replaced-url')).toContainText('not known')
  await setForm.getByRole('textbox', { name: 'URL' }).fill('https://merchant.example/hook')
  await setForm.getByRole('button', { name: 'Set production URL' }).click()
  await expect(page.getByRole('dialog')).toContainText('Change the production webhook URL')
  await expect(page.getByRole('dialog')).toContainText('The URL it replaces is not known')
  await confirmWithCode(page, e.confirmationCode())
  await expect(setForm.getByRole('status')).toBeVisible({ timeout: 15_000 })
  expect(live.control.webhookUrl('live-e2e-key')).toBe('https://merchant.example/hook')
  await expect(setForm.getByTestId('replaced-url')).toContainText('https://merchant.example/hook')

  // The next change names the URL it replaces; cancelled, the service keeps the first.
  await setForm.getByRole('textbox', { name: 'URL' }).fill('https://attacker.example/hook')
  await setForm.getByRole('button', { name: 'Set production URL' }).click()
  await expect(page.getByRole('dialog')).toContainText('It replaces https://merchant.example/hook')
  await shot(page, 'webhooks-production-change')
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()
  await expect(setForm.getByRole('alert')).toContainText('not confirmed')
  expect(live.control.webhookUrl('live-e2e-key')).toBe('https://merchant.example/hook')

  await navigate(page, 'settings')
  await page.getByRole('button', { name: 'Switch to Sandbox' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('SANDBOX')
})
