// The real renderer through a Team profile against a team hub on a sandbox: a viewer
// creates the profile, stores the operator token, switches, and sees the hub's prices
// and orders with the TEAM badge and its name and role, with quotes and the webhook URL
// disabled and saying why; an admin sees the team's operators, adds one (the token shown
// once) and revokes it; an operator's orders view comes back by itself, its filter
// kept, when the hub does. The merchant's API secret reaches no answer, event or page.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { startHubServer } from '../../src/hub/hub-server'
import { backupSqlite, restoreSqlite } from '../../src/hub/backup-command'
import { navigate, newTeamProfile, openView, shot, startApp, type E2eApp } from './harness'
import { hubOfSandbox, startTeamHub, type E2eTeamHub } from './team-hub'

let e: E2eApp
let team: E2eTeamHub

test.beforeAll(async () => {
  team = await startTeamHub({ orders: 300, seed: 9 })
  e = await startApp({ orders: 20 })
})
test.afterAll(async () => {
  await e?.close()
  await team?.close()
})

async function joinTeam(page: Page, name: string, token: string): Promise<void> {
  await navigate(page, 'settings')
  await newTeamProfile(page, name, team.server.url)
  await page.getByTestId('secret-input').fill(token)
  await page.getByRole('button', { name: 'Store token' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('The operator token is stored', { timeout: 15_000 })
  await page.getByRole('button', { name: 'Test connection' }).click()
  await expect(page.getByTestId('test-result')).toContainText(`Connected to the team hub at ${team.server.url} as`, { timeout: 15_000 })
  await page.getByRole('button', { name: `Switch to ${name}` }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('TEAM', { timeout: 15_000 })
}

test('a viewer works through the hub, with what the role lacks disabled and explained', async ({ page }) => {
  const bodies: string[] = []
  page.on('response', async (r) => {
    if (r.url().includes('/rpc/')) bodies.push(await r.text().catch(() => ''))
  })
  const token = (await team.hub.operators.add('vera', 'viewer')).token
  await openView(page, e, 'settings')
  await joinTeam(page, 'Team desk', token)
  await expect(page.getByTestId('team-operator')).toHaveText('vera · viewer')
  await expect(page.getByTestId('team-card')).toContainText('connected')

  // Prices come from the hub's one ticker.
  await navigate(page, 'tickers')
  await expect(page.locator('tr[data-coin]').first()).toBeVisible({ timeout: 15_000 })

  // Orders from the hub's database.
  await navigate(page, 'orders')
  await expect(page.locator('tr[data-order]').first()).toBeVisible({ timeout: 30_000 })

  // A viewer may not quote: the buttons are disabled and say why.
  await navigate(page, 'quote')
  await expect(page.getByRole('button', { name: 'Get quote' })).toBeDisabled()
  await expect(page.locator('[data-testid="role-note"][data-channel="quotes:get"]')).toContainText(
    'needs the operator role on the team hub; vera is a viewer'
  )

  await navigate(page, 'webhooks')
  await expect(page.getByRole('button', { name: 'Set URL' })).toBeDisabled()
  await expect(page.locator('[data-testid="role-note"][data-channel="webhooks:setUrl"]')).toContainText('needs the admin role')
  await shot(page, 'team-viewer-webhooks')

  // The service's diagnostics (its address, the hub's requests) are an operator's: the view
  // says so, and still shows the budget and the sync states every role reads.
  await navigate(page, 'diagnostics')
  await expect(page.locator('[data-testid="role-note"][data-channel="diagnostics:get"]')).toContainText(
    'needs the operator role on the team hub; vera is a viewer'
  )
  await expect(page.getByTestId('diag-sync')).toBeVisible()
  await expect(page.getByTestId('resync')).toBeDisabled()

  // The team's polling is the hub admin's.
  await navigate(page, 'settings')
  await expect(page.getByRole('spinbutton', { name: /Order history every/ })).toBeDisabled()

  expect(bodies.length).toBeGreaterThan(5)
  for (const b of bodies) expect(b).not.toContain(team.sandbox.apiSecret)
  expect(await page.content()).not.toContain(team.sandbox.apiSecret)
  // Nor the service's address, and the desktop asked the hub for nothing the role lacks.
  for (const b of bodies) expect(b).not.toContain(team.sandbox.url)
  const refused = (await team.hub.audit.list(500)).filter((r) => r.operator === 'vera' && r.action === 'refused')
  expect(refused.map((r) => r.detail.channel)).toEqual([])
})

test('an operator sends dummies to the hub only; a dummy to another URL is an admin’s, and says why', async ({ page }) => {
  const token = (await team.hub.operators.add('olive', 'operator')).token
  await openView(page, e, 'settings')
  await joinTeam(page, 'Team olive', token)
  await navigate(page, 'webhooks')
  const form = page.getByRole('form', { name: 'Send a dummy webhook' })
  await expect(form.getByRole('radio', { name: 'the URL above' })).toBeDisabled()
  await expect(form.getByTestId('dummy-url-role')).toContainText('needs the admin role on the team hub')
  await form.getByRole('button', { name: 'Send dummy' }).click()
  // Sent to the hub's own address, which the hub names.
  await expect(form.getByRole('status')).toContainText(`${team.server.url}/webhook`, { timeout: 15_000 })
})

test('an admin adds an operator, sees the token once, and revokes it', async ({ page }) => {
  const token = (await team.hub.operators.add('ada', 'admin')).token
  await openView(page, e, 'settings')
  await joinTeam(page, 'Team admin', token)
  await expect(page.getByTestId('team-operator')).toHaveText('ada · admin')
  const card = page.getByTestId('team-card')
  await expect(card.getByRole('table', { name: 'Operators' })).toContainText('vera')
  const add = card.getByRole('form', { name: 'Add an operator' })
  await add.getByRole('textbox', { name: 'Name' }).fill('newbie')
  await add.getByRole('combobox', { name: 'Role' }).selectOption('operator')
  await add.getByRole('button', { name: 'Add operator' }).click()
  const issued = page.getByTestId('issued-token')
  await expect(issued).toContainText('Token for newbie')
  const shown = (await issued.locator('code').textContent())!.trim()
  expect(team.hub.operators.authenticate(shown)?.name).toBe('newbie')
  await shot(page, 'team-admin')

  page.once('dialog', (d) => void d.accept())
  await card.getByRole('button', { name: 'Revoke newbie' }).click()
  await expect(card.getByRole('table', { name: 'Operators' })).not.toContainText('newbie')
  expect(team.hub.operators.authenticate(shown)).toBeNull()

  // The audit names who did it.
  const audit = (await team.hub.audit.list(50)).map((r) => `${r.operator} ${r.action}`)
  expect(audit).toContain('ada team:addOperator')
  expect(audit).toContain('ada team:revokeOperator')
})

test('a revoked operator is told their access was revoked and whom to ask, with no promise of a retry', async ({ page }) => {
  const token = (await team.hub.operators.add('rita', 'viewer')).token
  const admin = (await team.hub.operators.add('root-rita', 'admin')).token
  await openView(page, e, 'settings')
  await joinTeam(page, 'Team rita', token)
  await navigate(page, 'orders')
  await expect(page.locator('tr[data-order]').first()).toBeVisible({ timeout: 30_000 })

  // The admin revokes the token, as the team card does (the hub closes rita's streams at once).
  const r = await fetch(`${team.server.url}/rpc/team:revokeOperator`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'rita' })
  })
  expect(r.status).toBe(200)

  const notice = page.getByTestId('service-notice')
  await expect(notice).toHaveAttribute('data-problem', 'revoked', { timeout: 20_000 })
  await expect(notice).toContainText('Your access was revoked')
  await expect(notice).toContainText("Ask your team's admin for a new one")
  await expect(notice).not.toContainText(/retries|base URL|could not be reached/)
  await expect(page.getByTestId('hub-offline')).toHaveText('access revoked')
  // Its one action leads to where a new token goes.
  await notice.getByRole('link', { name: 'Open Settings' }).click()
  await expect(page.getByRole('heading', { name: 'Settings', exact: true })).toBeVisible()

  const tray = await e.app.services.handlers['tray:state']({})
  expect(tray.headline).toBe("Your access was revoked: ask your team's admin")
  await navigate(page, 'settings')
  await page.getByRole('button', { name: 'Switch to Sandbox' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('SANDBOX')
})

test('the orders view comes back by itself when the hub does', async ({ page }) => {
  const token = (await team.hub.operators.add('otto', 'operator')).token
  await openView(page, e, 'settings')
  await joinTeam(page, 'Team outage', token)
  await navigate(page, 'orders')
  await expect(page.locator('tr[data-order]').first()).toBeVisible({ timeout: 30_000 })

  // The hub goes away; a filter changed meanwhile cannot be answered and says so.
  const port = Number(new URL(team.server.url).port)
  await team.server.close()
  await expect(page.getByTestId('profile-kind')).toHaveText('TEAM')
  const note = page.getByRole('alert').filter({ hasText: 'Orders' }).filter({ hasText: 'unreachable' })
  await expect(async () => {
    await page.getByRole('combobox', { name: 'Status' }).selectOption('failed')
    await page.getByRole('combobox', { name: 'Status' }).selectOption('completed')
    await expect(note).toBeVisible({ timeout: 2_000 })
  }).toPass({ timeout: 20_000 })
  await page.waitForTimeout(1_000)
  await expect(note).toBeVisible()

  // It comes back with nothing written meanwhile (the same sync marks): the view asks
  // again on its own, without the operator touching anything.
  team.server = await startHubServer({ hub: team.hub, port })
  await expect(note).toBeHidden({ timeout: 30_000 })
  await expect(page.locator('tr[data-order]').first()).toBeVisible()
  // With the operator's filter still set, and its rows.
  await expect(page.getByRole('combobox', { name: 'Status' })).toHaveValue('completed')
  for (const s of await page.locator('tr[data-order] .pill').allTextContents()) expect(s.toLowerCase()).not.toContain('pending')
})

test('a profile with two hubs says which one it is on, and moves to the other when it stops answering', async ({ page }) => {
  // Two hubs, a backup and a restore before the page is even opened.
  test.setTimeout(150_000)
  // A second hub of the same merchant, on a data directory restored from the first's backup
  // (the same operators; several hubs on one database come with PostgreSQL).
  const token = (await team.hub.operators.add('hana', 'operator')).token
  const secondDir = await mkdtemp(join(tmpdir(), 'rampdesk-e2e-hub2-'))
  backupSqlite(team.dataDir, join(secondDir, 'backup'))
  restoreSqlite(join(secondDir, 'backup'), join(secondDir, 'data'))
  const second = await hubOfSandbox(team.sandbox, join(secondDir, 'data'))
  const secondServer = await startHubServer({ hub: second, port: 0 })
  const first = await startHubServer({ hub: team.hub, port: 0 })
  try {
    await page.setViewportSize({ width: 1280, height: 800 })
    await openView(page, e, 'settings')
    await navigate(page, 'settings')
    // The credentials form opens for the saved profile (a profile switch no longer builds it again).
    await newTeamProfile(page, 'Team pair', first.url, {
      otherHubUrls: secondServer.url,
      beforeSave: () => shot(page, 'team-two-hubs-form')
    })
    await page.getByTestId('secret-input').fill(token)
    await page.getByRole('button', { name: 'Store token' }).click()
    await expect(page.getByTestId('secret-status')).toContainText('The operator token is stored', { timeout: 15_000 })
    await page.getByRole('button', { name: 'Test connection' }).click()
    await expect(page.getByTestId('test-result')).toContainText(`Connected to the team hub at ${first.url} as hana`, { timeout: 15_000 })
    await expect(page.getByTestId('test-result')).toContainText(`The hub at ${secondServer.url} answers too`)
    await expect(page.getByTestId('other-hubs-count')).toHaveText(' + 1 other hub')
    await page.getByRole('button', { name: 'Switch to Team pair' }).click()
    await expect(page.getByTestId('profile-kind')).toHaveText('TEAM', { timeout: 15_000 })
    const host = (u: string) => new URL(u).host
    await expect(page.getByTestId('team-hub')).toHaveText(`on ${host(first.url)}`)
    await expect(page.getByTestId('team-hubs')).toContainText(`uses one of 2 hubs`)
    await expect(page.getByTestId('team-hub-url')).toHaveText(first.url)
    await shot(page, 'team-two-hubs')

    // The first hub stops answering: the desktop moves on, and says so; it is not offline.
    await first.close()
    await expect(page.getByTestId('team-hub')).toHaveText(`on ${host(secondServer.url)}`, { timeout: 15_000 })
    await expect(page.getByTestId('team-hub-url')).toHaveText(secondServer.url)
    await expect(page.getByTestId('team-card')).toContainText('connected')
    await expect(page.getByTestId('hub-offline')).toHaveCount(0)
    await navigate(page, 'orders')
    await expect(page.locator('tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
    await page.setViewportSize({ width: 960, height: 600 })
    await navigate(page, 'settings')
    await shot(page, 'team-moved-to-second-hub')
  } finally {
    await secondServer.close()
    await second.close()
    await rm(secondDir, { recursive: true, force: true })
  }
})
