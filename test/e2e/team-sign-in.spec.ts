// "Sign in with <provider>" in the browser harness, which has no system browser: the page goes
// to the team hub and an OpenID provider on loopback (oauth2-mock-server, which signs the
// person in at once) and comes back. A person whose groups give a role lands on the orders,
// signed in with that role; a person whose groups give none is back in Settings with the
// hub's refusal in words. A sign-in the person walks away from (the provider's page left, the
// tab closed) waits with Cancel, and cancelling ends it in words; signing out tells the hub.
// Screenshots at 1280x800 and 960x600 under test-results/.
import { expect, test, type Locator, type Page } from '@playwright/test'
import { layoutProblems } from './layout'
import { navigate, newTeamProfile, openView, startApp, type E2eApp } from './harness'
import { startTeamHub, type E2eTeamHub } from './team-hub'
import { hubOidcConfig, startTestProvider, type TestProvider } from '../support/oidc-provider'

let e: E2eApp
let team: E2eTeamHub
let provider: TestProvider
/** Time moved on for the desktop: its session is about to lapse, so it is renewed at the next call. */
let ahead = 0

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  provider = await startTestProvider()
  team = await startTeamHub({
    orders: 40,
    seed: 5,
    server: {
      oidc: hubOidcConfig(provider)
    }
  })
  e = await startApp({ orders: 10, now: () => Date.now() + ahead })
})
test.afterAll(async () => {
  await e?.close()
  await team?.close()
  await provider?.close()
})

/** The view at both sizes, scrolled to what it is about. */
async function shots(page: Page, name: string, about: Locator): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [960, 600]
  ] as const) {
    await page.setViewportSize({ width, height })
    // The orders table fits its columns to the new width once it has measured it.
    await expect.poll(() => layoutProblems(page), { message: `${name} at ${width}x${height}`, timeout: 5_000 }).toEqual([])
    // The card may be drawn again as the hub answers: find it again rather than fail on the old one.
    await expect(async () => about.scrollIntoViewIfNeeded({ timeout: 2_000 })).toPass({ timeout: 10_000 })
    await page.screenshot({ path: `test-results/screenshots/${name}-${width}x${height}.png` })
  }
  await page.setViewportSize({ width: 1280, height: 800 })
}

test('a person whose groups give the operator role signs in through the provider and sees the orders', async ({ page }) => {
  test.setTimeout(120_000)
  provider.person.groups = ['rd-operators']
  await openView(page, e, 'settings')
  await newTeamProfile(page, 'Team SSO', team.server.url)
  const card = page.getByTestId('team-sign-in')
  await expect(card).toContainText('This hub signs you in through Test IdP: there is no token to paste.', { timeout: 15_000 })
  await shots(page, 'sign-in-offered', card)
  // The credentials beside it say there is no token to paste, not that the hub will refuse.
  await expect(page.getByTestId('secret-status')).toHaveText(
    'Not signed in: sign in with Test IdP above, or paste an operator token your team lead gave you.'
  )

  await card.getByRole('button', { name: 'Sign in with Test IdP' }).click()
  // Through the hub and the provider, and back to the harness: its orders, on the team profile.
  await expect(page).toHaveURL(/#\/orders$/, { timeout: 30_000 })
  await expect(page.getByTestId('profile-kind')).toHaveText('TEAM', { timeout: 15_000 })
  await expect(page.getByTestId('team-operator')).toHaveText('ana · operator', { timeout: 15_000 })
  await expect(page.locator('tr[data-order]').first()).toBeVisible({ timeout: 30_000 })
  await shots(page, 'sign-in-orders', page.locator('tr[data-order]').first())

  await navigate(page, 'settings')
  await expect(page.getByTestId('sign-in-state')).toHaveText('Signed in through Test IdP as ana (operator).')
  await expect(page.getByTestId('secret-status')).toContainText('You are signed in through Test IdP; the sign-in is kept in')
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible()
  // The window never holds the session: the token fields stay write-only and empty.
  expect(await page.content()).not.toMatch(/rds_|rdr_/)
})

test('a person whose groups give no role is back in Settings with the refusal in words', async ({ page }) => {
  test.setTimeout(120_000)
  provider.person.groups = ['everyone']
  await openView(page, e, 'settings')
  await newTeamProfile(page, 'Team nobody', team.server.url)
  await page.getByTestId('team-sign-in').getByRole('button', { name: 'Sign in with Test IdP' }).click()
  await expect(page).toHaveURL(/#\/settings$/, { timeout: 30_000 })
  await expect(page.getByRole('heading', { name: 'Sign in to “Team nobody”' })).toBeVisible({ timeout: 15_000 })
  await expect(page.getByTestId('sign-in-state')).toHaveText(
    `You are not signed in. Your Test IdP account has no Rampdesk role: ask your team lead to add you to one of: rd-admins, rd-operators, rd-viewers`
  )
  // Nothing changed hands: the profile that was active before stays active.
  await expect(page.getByTestId('team-operator')).toHaveText('ana · operator')
  await shots(page, 'sign-in-refused', page.getByTestId('sign-in-state'))
})

test('when the provider disables the person, the app says the sign-in ended and offers to sign in again', async ({ page }) => {
  test.setTimeout(120_000)
  provider.person.groups = ['rd-operators']
  provider.person.disabled = true
  ahead = 15 * 60_000
  await openView(page, e, 'orders')
  await expect(page.getByTestId('hub-offline')).toHaveText('sign-in ended', { timeout: 30_000 })
  await expect(page.getByText('Test IdP ended your sign-in. Sign in again from Settings → Credentials.').first()).toBeVisible()
  await expect(page.getByTestId('export-why')).toHaveText('Export needs you signed in to the team hub: sign in again')
  await shots(page, 'sign-in-ended-orders', page.getByTestId('hub-offline'))

  await navigate(page, 'settings')
  await page.getByRole('button', { name: 'Credentials of Team SSO' }).click()
  await expect(page.getByTestId('sign-in-state')).toHaveText('Your sign-in has ended: Test IdP ended your sign-in. Sign in again.')
  await shots(page, 'sign-in-ended-settings', page.getByTestId('sign-in-state'))

  provider.person.disabled = false
  ahead = 0
  await page.getByTestId('team-sign-in').getByRole('button', { name: 'Sign in with Test IdP' }).click()
  await expect(page).toHaveURL(/#\/orders$/, { timeout: 30_000 })
  await expect(page.getByTestId('team-operator')).toHaveText('ana · operator', { timeout: 15_000 })
  await expect(page.getByTestId('hub-offline')).toHaveCount(0, { timeout: 15_000 })
})

test('a sign-in left at the provider waits with Cancel, and cancelling ends it in words', async ({ page }) => {
  test.setTimeout(120_000)
  provider.person.groups = ['rd-operators']
  // The provider's sign-in page, where the person stops (this one would sign them in at once).
  // Routed at the hub's start, the page's first request: Playwright routes no redirect's target.
  const start = /\/auth\/oidc\/start\?/
  await page.route(start, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Test IdP</title><p>Sign in to Test IdP</p>' })
  )
  await openView(page, e, 'settings')
  await newTeamProfile(page, 'Team later', team.server.url)
  await page.getByTestId('team-sign-in').getByRole('button', { name: 'Sign in with Test IdP' }).click()
  await expect(page.getByText('Sign in to Test IdP')).toBeVisible({ timeout: 30_000 })
  // Back to Rampdesk without signing in: the sign-in still waits, and says so.
  await page.goBack()
  await page.getByRole('button', { name: 'Credentials of Team later' }).click()
  const card = page.getByTestId('team-sign-in')
  await expect(card.getByTestId('sign-in-waiting')).toHaveText(/^Waiting for Test IdP in your browser…\s*Cancel$/, { timeout: 15_000 })
  await expect(card.getByRole('button', { name: 'Sign in with Test IdP' })).toBeDisabled()
  await shots(page, 'sign-in-waiting', card)

  await card.getByRole('button', { name: 'Cancel' }).click()
  await expect(card.getByTestId('sign-in-cancelled')).toHaveText('Sign-in cancelled.')
  await expect(card.getByTestId('sign-in-waiting')).toHaveCount(0)
  await expect(card.getByRole('button', { name: 'Sign in with Test IdP' })).toBeEnabled()
  await shots(page, 'sign-in-cancelled', card)
  // The provider's page coming back now finds the sign-in over.
  await page.unroute(start)
  await page.goForward()
  await expect(page.getByText('This sign-in was not started by this Rampdesk, or it is over.')).toBeVisible({ timeout: 30_000 })
})

test('signing out ends the sign-in at the hub and says so', async ({ page }) => {
  test.setTimeout(120_000)
  await openView(page, e, 'settings')
  await page.getByRole('button', { name: 'Credentials of Team SSO' }).click()
  await expect(page.getByTestId('sign-in-state')).toHaveText('Signed in through Test IdP as ana (operator).', { timeout: 15_000 })
  await page.getByRole('button', { name: 'Sign out' }).click()
  await expect(page.getByTestId('credentials-message')).toHaveText(
    'Signed out: the team hub ended your sign-in. Sign in with Test IdP again to go on.'
  )
  const audit = await team.hub.audit.list(20)
  expect(audit.filter((x) => x.action === 'oidc:signedOut').map((x) => x.operator)).toEqual(['ana'])
  // The header says the sign-in ended, not that the hub is away.
  await expect(page.getByTestId('hub-offline')).toHaveText('sign-in ended', { timeout: 15_000 })
  await expect(page.getByText('You signed out. Sign in again from Settings → Credentials.').first()).toBeVisible()
  await shots(page, 'signed-out', page.getByTestId('credentials-message'))
})
