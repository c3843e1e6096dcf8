// An admin's desktop on a hub that requires a second factor (--require-second-factor admins),
// driven as the operator would: the warning a week before the token ends; setting up the
// authenticator from Settings (the QR code as an image, the key typed into an authenticator
// played here by otpauth, a wrong code refused in words, then the right one); then an admin
// action the hub refuses until a code is given: the dialog asks over the Settings view, says
// a wrong code is wrong, takes the right one and the action goes through. Then another admin
// is locked out by wrong codes and told until when on their own clock, and told, once the hub's
// key no longer opens their second factor, that the hub cannot check codes (not that they
// have none). Screenshots at 1280x800 and 960x600 under test-results/screenshots.
import { expect, test, type Page } from '@playwright/test'
import { Secret, TOTP } from 'otpauth'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { enrolSecondFactor } from '../../src/hub/second-factor'
import { secondFactorKeyIn } from '../../src/hub/second-factor-key'
import type { SqliteHubStore } from '../../src/hub/sqlite-hub-store'
import { SqliteSecondFactors } from '../../src/hub/sqlite-second-factor'
import { layoutProblems } from './layout'
import { navigate, newTeamProfile, openView, startApp, type E2eApp } from './harness'
import { startTeamHub, type E2eTeamHub } from './team-hub'

let e: E2eApp
let team: E2eTeamHub

test.beforeAll(async () => {
  team = await startTeamHub({ orders: 20, seed: 4, server: { requireSecondFactor: 'admins' } })
  e = await startApp({ orders: 10 })
})
test.afterAll(async () => {
  await e?.close()
  await team?.close()
})

const SIZES = [
  { width: 1280, height: 800 },
  { width: 960, height: 600 }
] as const

async function shots(page: Page, name: string): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize(size)
    await expect.poll(() => layoutProblems(page), { message: `${name} at ${size.width}x${size.height}` }).toEqual([])
    await page.screenshot({ path: `test-results/screenshots/${name}-${size.width}.png` })
  }
}

/** A code the authenticator does not show around now. */
const wrongFor = (t: TOTP) => {
  const near = [-30_000, 0, 30_000, 60_000].map((d) => t.generate({ timestamp: Date.now() + d }))
  return ['000000', '111111', '222222', '333333', '444444'].find((c) => !near.includes(c))!
}

test('warns of the token ending, sets up the authenticator from Settings, and asks for a code before an admin action', async ({ page }) => {
  test.setTimeout(180_000)
  // Ends in three days: inside the week's warning.
  const { token } = await team.hub.operators.add('lead', 'admin', { lifetimeMs: 3 * 86_400_000 })
  await openView(page, e, 'settings')
  await navigate(page, 'settings')
  await newTeamProfile(page, 'Team lead', team.server.url)
  await page.getByTestId('secret-input').fill(token)
  await page.getByRole('button', { name: 'Store token' }).click()
  await expect(page.getByTestId('secret-status')).toContainText('The operator token is stored', { timeout: 15_000 })
  await page.getByRole('button', { name: 'Switch to Team lead' }).click()
  await expect(page.getByTestId('profile-kind')).toHaveText('TEAM')

  await expect(page.getByTestId('access-ending')).toHaveText(
    /^Your access to the hub ends on \d{1,2} \w{3}; ask your team lead for a new token\.$/,
    {
      timeout: 20_000
    }
  )
  await page.getByTestId('access-ending').scrollIntoViewIfNeeded()
  await shots(page, 'team-access-ending')

  // Setting up the authenticator.
  const card = page.getByTestId('second-factor-card')
  await expect(card.getByTestId('second-factor-status')).toContainText('off', { timeout: 15_000 })
  await card.getByTestId('second-factor-start').click()
  const qr = card.getByTestId('second-factor-qr')
  await expect(qr).toBeVisible()
  expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/)
  expect(await qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(100)
  const key = (await card.locator('code.key').innerText()).trim()
  expect(key).toMatch(/^[A-Z2-7]{32}$/)
  await expect(card.getByTestId('second-factor-recovery')).toContainText(/[0-9a-f]{5}-[0-9a-f]{5}/)
  await qr.scrollIntoViewIfNeeded()
  await shots(page, 'second-factor-setup')
  // The operator's phone.
  const phone = new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30 })
  await card.getByTestId('second-factor-confirm-code').fill(wrongFor(phone))
  await card.getByRole('button', { name: 'Turn on' }).click()
  // The desktop's own words for the hub's refusal (which may name a command), the same as at sign-in.
  await expect(card.getByRole('alert')).toHaveText(
    'That code is not right. Type the newest code your authenticator app shows; check that the phone’s clock is right.'
  )
  await card.getByTestId('second-factor-confirm-code').fill(phone.generate())
  await card.getByRole('button', { name: 'Turn on' }).click()
  await expect(card.getByTestId('second-factor-done')).toBeVisible()
  await expect(card.getByTestId('second-factor-qr')).toHaveCount(0)
  await expect(card.getByTestId('second-factor-status')).toContainText('10 recovery codes left')

  // An admin action: the hub wants a code for this session first.
  await page.getByTestId('team-card').getByLabel('Name').fill('helper')
  await page.getByTestId('team-card').getByRole('button', { name: /^Add/ }).click()
  const dialog = page.getByTestId('second-factor-dialog')
  await expect(dialog.getByRole('heading', { name: 'Enter your sign-in code' })).toBeVisible({ timeout: 15_000 })
  await dialog.getByTestId('second-factor-code').fill(wrongFor(phone))
  await dialog.getByRole('button', { name: 'Continue' }).click()
  await expect(dialog.getByTestId('second-factor-problem')).toHaveText(
    'That code is not right. Type the newest code your authenticator app shows; check that the phone’s clock is right.'
  )
  await shots(page, 'second-factor-dialog')
  // The code that turned it on was taken: the next one.
  await dialog.getByTestId('second-factor-code').fill(phone.generate({ timestamp: Date.now() + 30_000 }))
  await dialog.getByRole('button', { name: 'Continue' }).click()
  await expect(dialog).not.toBeVisible()
  await expect(page.getByTestId('team-card')).toContainText('helper', { timeout: 15_000 })
  const text = await page.locator('body').innerText()
  expect(text).not.toMatch(/second_factor|x-rampdesk|HTTP \d{3}|team:/i)
})

test.describe(() => {
  // A zone away from the hub's UTC, so that a time written in UTC cannot pass for the operator's.
  test.use({ timezoneId: 'Asia/Kolkata' })
  test("says a lockout's end on the operator's clock, and that a hub whose key does not match cannot check codes", async ({ page }) => {
    test.setTimeout(180_000)
    const { token } = await team.hub.operators.add('guard', 'admin')
    const enrolled = await enrolSecondFactor(team.hub.store.secondFactors, 'guard', 'e2e', Date.now())
    const phone = new TOTP({ secret: Secret.fromBase32(enrolled.secret), digits: 6, period: 30 })
    await openView(page, e, 'settings')
    await navigate(page, 'settings')
    await newTeamProfile(page, 'Guard', team.server.url)
    await page.getByTestId('secret-input').fill(token)
    await page.getByRole('button', { name: 'Store token' }).click()
    await expect(page.getByTestId('secret-status')).toContainText('The operator token is stored', { timeout: 15_000 })
    await page.getByRole('button', { name: 'Switch to Guard' }).click()
    await expect(page.getByTestId('profile-kind')).toHaveText('TEAM')

    // Settings lists the team, an admin read: the hub wants guard's code first.
    const dialog = page.getByTestId('second-factor-dialog')
    await expect(dialog.getByRole('heading', { name: 'Enter your sign-in code' })).toBeVisible({ timeout: 15_000 })
    const near = [-60_000, -30_000, 0, 30_000, 60_000].map((d) => phone.generate({ timestamp: Date.now() + d }))
    const wrong = Array.from({ length: 10 }, (_, i) => String(i * 111_111).padStart(6, '0')).filter((c) => !near.includes(c))
    for (const c of wrong.slice(0, 5)) {
      await dialog.getByTestId('second-factor-code').fill(c)
      await dialog.getByRole('button', { name: 'Continue' }).click()
      // A refused code is cleared once the hub answered.
      await expect(dialog.getByTestId('second-factor-code')).toHaveValue('')
    }
    const until = (await team.hub.audit.list(50)).find((a) => a.operator === 'guard' && a.action === 'secondFactor:lockedOut')
    const minute = await page.evaluate(
      (ms) => new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(Math.ceil(ms / 60_000) * 60_000),
      until!.detail.until as number
    )
    await expect(dialog.getByTestId('second-factor-problem')).toHaveText(`Too many wrong codes. Try again after ${minute}.`)
    await shots(page, 'second-factor-locked')
    // The hub's key file no longer opens guard's second factor (enrolled again by a hub with another key),
    // before the dialog is closed: from now on the hub answers every admin read so, and asks for no code.
    const otherKey = secondFactorKeyIn(mkdtempSync(join(tmpdir(), 'rampdesk-e2e-otherkey-')))
    await new SqliteSecondFactors((team.hub.store as SqliteHubStore).sql, otherKey).enrol('guard', enrolled.secret, [], Date.now())
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await expect(dialog).not.toBeVisible()
    await page.getByTestId('team-card').getByLabel('Name').fill('helper2')
    await page.getByTestId('team-card').getByRole('button', { name: /^Add/ }).click()
    await expect(page.getByTestId('team-card').getByRole('alert')).toHaveText(
      'The hub cannot check second-factor codes right now: ask your team lead (its key file does not match).',
      { timeout: 15_000 }
    )
    await expect(dialog).not.toBeVisible()
    await shots(page, 'second-factor-unavailable')
    const text = await page.locator('body').innerText()
    expect(text).not.toMatch(/second_factor|x-rampdesk|HTTP \d{3}|team:|UTC|totp enrol|not enrolled|none enrolled/i)
  })
})
