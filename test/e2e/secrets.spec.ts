// The API secret is write-only: with a canary secret configured for a live profile,
// the canary appears nowhere in the DOM, in any RPC answer or event the renderer
// receives, in the page's console, in the audit log or in the clear on disk; the
// field is emptied after saving; and "test connection" explains the refusal in plain
// words.
import { expect, test } from '@playwright/test'
import { filesContaining, openView, shot, startApp, type E2eApp } from './harness'

const CANARY = 'canary-7Qx2-rampdesk-secret-must-not-leak'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
})
test.afterAll(async () => {
  await e?.close()
})

test('a canary secret never reaches the renderer', async ({ page }) => {
  // Every SSE message the page receives is recorded before the app's own listeners run.
  await page.addInitScript(`
    window.__sse = []
    const Orig = window.EventSource
    window.EventSource = class extends Orig {
      constructor(url, init) {
        super(url, init)
        const add = this.addEventListener.bind(this)
        this.addEventListener = (type, l, o) => add(type, (m) => { window.__sse.push(String(m.data)); l(m) }, o)
      }
    }
  `)
  const bodies: string[] = []
  page.on('response', async (r) => {
    if (r.url().includes('/rpc/')) bodies.push(await r.text().catch(() => ''))
  })
  const consoleLines: string[] = []
  page.on('console', (m) => consoleLines.push(m.text()))

  await openView(page, e, 'settings')
  await page.getByRole('button', { name: 'New live profile' }).click()
  const form = page.getByRole('form', { name: 'New profile' })
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill('Canary live')
  await form.getByRole('textbox', { name: 'Base URL' }).fill(e.app.services.sandbox()?.url ?? 'http://127.0.0.1:9')
  await form.getByRole('textbox', { name: 'API key' }).fill(e.app.services.sandbox()?.apiKey ?? 'key')
  await form.getByRole('button', { name: 'Save profile' }).click()
  await expect(page.getByRole('heading', { name: 'Credentials of “Canary live”' })).toBeVisible()

  const secret = page.getByTestId('secret-input')
  await secret.fill(CANARY)
  await page.getByRole('button', { name: 'Store secret' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('A secret is stored', { timeout: 15_000 })
  await expect(secret).toHaveValue('')

  await page.getByRole('button', { name: 'Test connection' }).click()
  const result = page.getByTestId('test-result')
  await expect(result).toBeVisible({ timeout: 20_000 })
  // The canary is not the sandbox's secret: the service refuses it, and the page says why.
  await expect(result).toContainText(/refused the credentials|Connection failed/)
  await shot(page, 'settings-credentials')

  // Reload the settings view: nothing pre-fills the field.
  await page.reload()
  await page.getByRole('button', { name: 'Credentials of Canary live' }).click()
  await expect(page.getByTestId('secret-input')).toHaveValue('')

  const audit = await page.evaluate(async () =>
    (await fetch('/rpc/audit:list', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"limit":500}' })).text()
  )
  const dom = await page.content()
  const sse = await page.evaluate(() => (globalThis as unknown as { __sse: string[] }).__sse)
  const values = await page.locator('input, textarea').evaluateAll((els) => els.map((el) => (el as unknown as { value: string }).value))

  expect(bodies.length).toBeGreaterThan(5)
  expect(dom).not.toContain(CANARY)
  expect(values.join('\n')).not.toContain(CANARY)
  for (const b of bodies) expect(b).not.toContain(CANARY)
  expect(sse.join('\n')).not.toContain(CANARY)
  expect(consoleLines.join('\n')).not.toContain(CANARY)
  expect(audit).not.toContain(CANARY)
  // Nor on disk in the clear: not in the database, its WAL, the logs or the secret file.
  expect(await filesContaining(e.app.dataDir, CANARY)).toEqual([])
})

test('switching to a live profile shows the LIVE badge; switching back and deleting it works', async ({ page }) => {
  await openView(page, e, 'settings')
  const list = page.getByRole('list', { name: 'Profiles' })
  if ((await list.getByRole('listitem').filter({ hasText: 'Canary live' }).count()) === 0) {
    await page.getByRole('button', { name: 'New live profile' }).click()
    const form = page.getByRole('form', { name: 'New profile' })
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill('Canary live')
    await form.getByRole('textbox', { name: 'Base URL' }).fill(e.app.services.sandbox()?.url ?? 'http://127.0.0.1:9')
    await form.getByRole('textbox', { name: 'API key' }).fill('some-key')
    await form.getByRole('button', { name: 'Save profile' }).click()
  }
  await page.getByRole('button', { name: 'Switch to Canary live' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('LIVE')
  await expect(page.getByTestId('profile')).toContainText('Canary live')
  await shot(page, 'settings-live-profile')

  await page.getByRole('button', { name: 'Switch to Sandbox' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('SANDBOX')
  page.once('dialog', (d) => void d.accept())
  await page.getByRole('button', { name: 'Delete Canary live' }).click()
  await expect(list.getByRole('listitem').filter({ hasText: 'Canary live' })).toHaveCount(0)
})
