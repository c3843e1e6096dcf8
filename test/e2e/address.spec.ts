// The address check guiding an operator with a customer on the phone, at the window's two
// sizes and from the keyboard: a Bitcoin address given for USDT on ERC20 is named for what
// it is with what to ask for (no network suggested, YOTA never); a TRON address given on
// ERC20 is offered as USDT on TRC20 and checked there in one key press; a space pasted
// inside is offered out; a BNB Beacon Chain address is suggested as BNB on BEP2 only when
// the coin is BNB. Each failure is said once, and each state is readable (layout.ts).
import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { expect, test, type Locator, type Page } from '@playwright/test'
import { sampleAddress } from '../../src/sandbox/sample-addresses'
import { mulberry32 } from '../../src/sandbox/rng'
import { layoutProblems } from './layout'
import { openView, startApp, type E2eApp } from './harness'

let e: E2eApp

test.beforeAll(async () => {
  e = await startApp()
})
test.afterAll(async () => {
  await e?.close()
})

const sample = (symbol: string, seed = 5): string => sampleAddress(symbol, mulberry32(seed)).address

/** A screenshot for reading what the view says (test-results only: the README's are taken elsewhere). */
async function look(page: Page, name: string): Promise<void> {
  const dir = resolve('test-results/screenshots/address')
  await mkdir(dir, { recursive: true })
  await page.screenshot({ path: resolve(dir, `${name}.png`), animations: 'disabled' })
}

async function readable(page: Page, what: string): Promise<void> {
  await page.waitForTimeout(200)
  expect(await layoutProblems(page), what).toEqual([])
}

/** Tabs forward from where the focus is until `target` has it (at most `max` presses). */
async function tabTo(page: Page, target: Locator, max = 12): Promise<number> {
  for (let n = 1; n <= max; n++) {
    await page.keyboard.press('Tab')
    if (await target.evaluate((el) => el.matches(':focus'))) return n
  }
  throw new Error(`${max} Tab presses did not reach the control`)
}

for (const size of [
  { width: 1280, height: 800 },
  { width: 960, height: 600 }
]) {
  test.describe(`at ${size.width}x${size.height}`, () => {
    test.use({ viewport: size })
    const tag = `${size.width}`

    test('a foreign address is named for what it is; a TRON address on ERC20 is checked as USDT on TRC20 from the keyboard', async ({
      page
    }) => {
      await openView(page, e, 'address')
      const coin = page.getByRole('combobox', { name: 'Coin' })
      const network = page.getByRole('combobox', { name: 'Network' })
      const input = page.getByRole('textbox', { name: 'Address' })
      const result = page.getByTestId('address-result')
      const verdict = page.getByTestId('address-verdict')
      await expect(coin).toBeVisible({ timeout: 15_000 })
      await coin.selectOption({ label: 'USDT · Tether USD' })
      await network.selectOption({ label: 'ERC20 · Ethereum' })
      await expect(page.getByTestId('address-rules')).toContainText('An ERC20 address is "0x" followed by 40 hexadecimal characters')

      // A Bitcoin address: named, what to ask for, no network offered, and one failure.
      await input.fill(sample('btc'))
      await expect(verdict).toHaveText('Address refused')
      const guide = page.getByTestId('address-guide')
      await expect(guide).toHaveText(
        'This is a Bitcoin address; USDT is not offered on any network that takes one. Ask the customer for an ERC20 address.'
      )
      await expect(guide.getByRole('button')).toHaveCount(0)
      await expect(result.locator('li.bad')).toHaveCount(1)
      await expect(result).not.toContainText('YOTA')
      await readable(page, `a Bitcoin address on ERC20 at ${tag}`)
      await look(page, `bitcoin-on-erc20-${tag}`)

      // A TRON address: offered as USDT on TRC20, pressed with the keyboard, valid there.
      const tron = sample('trc20')
      await input.fill(tron)
      await expect(guide).toContainText('This is a valid TRC20 address, not an ERC20 one.')
      const checkAs = guide.getByRole('button', { name: 'Check it as USDT on TRC20' })
      await expect(checkAs).toBeVisible()
      await expect(result.locator('li.bad')).toHaveCount(1)
      await readable(page, `a TRON address on ERC20 at ${tag}`)
      await look(page, `tron-on-erc20-${tag}`)
      await input.focus()
      await tabTo(page, checkAs)
      await page.keyboard.press('Enter')
      await expect(verdict).toHaveText('Address looks valid')
      await expect(verdict).toBeFocused()
      await expect(network).toHaveValue('2')
      await expect(input).toHaveValue(tron)
      await expect(guide).toHaveCount(0)
      await expect(result.locator('li.bad')).toHaveCount(0)
    })

    test('a space inside a pasted address is offered out, from the keyboard, and the address re-checked', async ({ page }) => {
      await openView(page, e, 'address')
      const input = page.getByRole('textbox', { name: 'Address' })
      await expect(page.getByRole('combobox', { name: 'Coin' })).toBeVisible({ timeout: 15_000 })
      await page.getByRole('combobox', { name: 'Coin' }).selectOption({ label: 'USDT · Tether USD' })
      await page.getByRole('combobox', { name: 'Network' }).selectOption({ label: 'TRC20 · Tron' })
      const a = sample('trc20', 9)
      await input.fill(`${a.slice(0, 14)} ${a.slice(14)}`)
      const result = page.getByTestId('address-result')
      await expect(page.getByTestId('address-verdict')).toHaveText('Address refused')
      // Said once, with its fix beside it; the other checks read it without the space and pass.
      const bad = result.locator('li.bad')
      await expect(bad).toHaveCount(1)
      await expect(bad).toContainText('no stray whitespace')
      await expect(result.locator('li.ok')).not.toHaveCount(0)
      const remove = bad.getByRole('button', { name: 'Remove the space' })
      await readable(page, `a space inside at ${tag}`)
      await look(page, `space-inside-${tag}`)
      await input.focus()
      await tabTo(page, remove)
      await page.keyboard.press('Enter')
      await expect(input).toHaveValue(a)
      await expect(input).toBeFocused()
      await expect(page.getByTestId('address-verdict')).toHaveText('Address looks valid')
    })

    test('a BNB Beacon Chain address on BEP20 is suggested as BEP2 for BNB, and named only for USDT', async ({ page }) => {
      await openView(page, e, 'address')
      const coin = page.getByRole('combobox', { name: 'Coin' })
      const network = page.getByRole('combobox', { name: 'Network' })
      const input = page.getByRole('textbox', { name: 'Address' })
      await expect(coin).toBeVisible({ timeout: 15_000 })
      await coin.selectOption({ label: 'BNB · BNB' })
      // Only the coin's networks are offered.
      await expect(network.locator('option')).toHaveText(['BEP20 · BNB Smart Chain', 'BEP2 · BNB Beacon Chain'])
      await network.selectOption({ label: 'BEP20 · BNB Smart Chain' })
      const bnb1 = sample('bep2')
      await input.fill(bnb1)
      const guide = page.getByTestId('address-guide')
      await expect(guide).toContainText('This is a valid BEP2 address, not a BEP20 one.')
      await guide.getByRole('button', { name: 'Check it as BNB on BEP2' }).click()
      await expect(page.getByTestId('address-verdict')).toHaveText('Address looks valid')
      // The memo BEP2 takes is asked for now.
      await expect(page.getByRole('textbox', { name: /Memo \/ tag/ })).toBeVisible()
      await look(page, `bep2-for-bnb-${tag}`)

      await coin.selectOption({ label: 'USDT · Tether USD' })
      await network.selectOption({ label: 'BEP20 · BNB Smart Chain' })
      await expect(guide).toHaveText(
        'This is a BNB Beacon Chain address; USDT is not offered on any network that takes one. Ask the customer for a BEP20 address.'
      )
      await readable(page, `a Beacon Chain address for USDT at ${tag}`)
      await look(page, `bep2-for-usdt-${tag}`)
    })
  })
}
