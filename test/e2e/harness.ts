// Shared pieces of the e2e specs: the whole app (embedded sandbox + services + web
// harness) started in-process on random ports with a temporary data directory, the codes
// its typed confirmations show, a way to open one view of it in the page, and screenshots
// saved both as test artifacts and for the README.
import { mkdir, readdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { expect, type Page } from '@playwright/test'
import { startWebApp, type WebApp } from '../../src/web/app'
import type { SandboxControl, StartSandboxOptions } from '../../src/sandbox'
import { memorySafeStorage } from '../support/memory-safe-storage'

export type { ViewId } from '../../src/renderer/src/lib/views'
import type { ViewId } from '../../src/renderer/src/lib/views'

export interface E2eApp {
  app: WebApp
  base: string
  control: SandboxControl
  apiSecret: string
  /** The one-time code of the newest typed confirmation (npm run web prints it in its terminal). */
  confirmationCode(): string | null
  close(): Promise<void>
}

/** Every file under a directory whose bytes contain the text (to prove a secret is not stored in the clear). */
export async function filesContaining(dir: string, text: string): Promise<string[]> {
  const hits: string[] = []
  const needle = Buffer.from(text)
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    const bytes = await readFile(path).catch(() => null)
    if (bytes?.includes(needle)) hits.push(path)
  }
  return hits
}

/**
 * noKeychain: as npm run web on a machine with no Secret Service: no keychain and no
 * encrypted store at all (otherwise live-profile secrets get an in-process AES-256-GCM
 * stand-in for Electron's safeStorage, which the browser harness does not have).
 * sandbox: further options of the embedded sandbox (its readings, the fiats it holds orders in).
 */
export async function startApp(
  opts: {
    orders?: number
    seed?: number
    noKeychain?: boolean
    sandbox?: Omit<StartSandboxOptions, 'host' | 'port' | 'orders' | 'seed'>
    /** One clock for the app and its sandbox (a test moves it to let time pass). */
    now?: () => number
  } = {}
): Promise<E2eApp> {
  const safeStorage = opts.noKeychain ? undefined : memorySafeStorage({ backend: 'e2e_aes_gcm' })
  // What the terminal of npm run web would show: the codes of typed confirmations.
  const terminal: string[] = []
  const app = await startWebApp({
    sandbox: { orders: opts.orders ?? 1500, seed: opts.seed ?? 7, ...opts.sandbox, ...(opts.now ? { now: opts.now } : {}) },
    services: {
      ...(opts.now ? { now: opts.now } : {}),
      ...(safeStorage ? { safeStorage } : {}),
      ...(opts.noKeychain ? { keychain: false as const } : {}),
      confirmationCodes: { show: (line) => void terminal.push(line), shownIn: 'the terminal where npm run web runs' }
    }
  })
  const sandbox = app.services.sandbox()
  if (!sandbox) throw new Error('the sandbox profile did not start its simulator')
  return {
    app,
    base: new URL(app.openUrl).origin,
    control: sandbox.control,
    apiSecret: sandbox.apiSecret,
    confirmationCode: () => [...terminal.join('\n').matchAll(/type (\d{4}-\d{4})/g)].at(-1)?.[1] ?? null,
    close: () => app.close()
  }
}

/** Exchanges the launch token for the session cookie, then opens a view. */
export async function openView(page: Page, e: E2eApp, view: ViewId | 'tray'): Promise<void> {
  await page.goto(e.app.openUrl)
  await page.goto(view === 'tray' ? `${e.base}/?view=tray` : `${e.base}/?view=main#/${view}`)
}

/** Switches views the way an operator does: with the navigation. */
export async function navigate(page: Page, view: ViewId): Promise<void> {
  const names: Record<ViewId, string> = {
    tickers: 'Tickers',
    quote: 'Quote',
    address: 'Address',
    bank: 'Bank',
    orders: 'Orders',
    webhooks: 'Webhooks',
    diagnostics: 'Diagnostics',
    settings: 'Settings'
  }
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: names[view], exact: true }).click()
}

const ARTIFACTS = resolve('test-results/screenshots')
// The README's screenshots are retaken on request (RAMPDESK_DOC_SCREENSHOTS=1): a test run
// that rewrote tracked files would leave every checkout changed after `npm test`.
const DOCS = process.env.RAMPDESK_DOC_SCREENSHOTS === '1' ? resolve('docs/screenshots') : null

/** A screenshot of the page as it is, saved as a test artifact (and for the README when asked). */
export async function shot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true })
  const png = await page.screenshot({ animations: 'disabled' })
  const { writeFile } = await import('node:fs/promises')
  await writeFile(join(ARTIFACTS, `${name}.png`), png)
  if (DOCS) {
    await mkdir(DOCS, { recursive: true })
    await writeFile(join(DOCS, `${name}.png`), png)
  }
}

/**
 * Makes a team profile in Settings as an operator does (New team profile, its name and hub
 * URL, Save), and waits for its credentials form. `beforeSave` runs with the form filled.
 */
export async function newTeamProfile(
  page: Page,
  name: string,
  hubUrl: string,
  o: { otherHubUrls?: string; beforeSave?: () => Promise<void> } = {}
): Promise<void> {
  await page.getByRole('button', { name: 'New team profile' }).click()
  const form = page.getByRole('form', { name: 'New profile' })
  await form.getByRole('textbox', { name: 'Name', exact: true }).fill(name)
  await form.getByRole('textbox', { name: 'Team hub URL' }).fill(hubUrl)
  if (o.otherHubUrls !== undefined) await form.getByRole('textbox', { name: 'Other hub URLs' }).fill(o.otherHubUrls)
  await o.beforeSave?.()
  await form.getByRole('button', { name: 'Save profile' }).click()
  await expect(page.getByRole('heading', { name: `Credentials of “${name}”` })).toBeVisible()
}
