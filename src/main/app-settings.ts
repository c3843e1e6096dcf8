// App-wide settings (theme, polling intervals, notifications, start at login, the local
// webhook inbox): one JSON file under the data directory, validated on read, written
// atomically. No secret is ever part of it.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  DEFAULT_STALLED_MINUTES,
  DELIVERY_LOG_DEFAULTS,
  Settings,
  type SettingsPatch,
  type Settings as SettingsT
} from '../shared/ipc/contract'

export const DEFAULT_SETTINGS: SettingsT = {
  theme: 'system',
  startAtLogin: false,
  historyPollSeconds: 30,
  watchPollSeconds: 15,
  tickerPollSeconds: 15,
  reconcileHours: 24,
  freshnessMinutes: 10,
  fiatTypes: [1],
  tickerFiat: 1,
  pinnedTickers: [],
  notify: { terminalSuccess: true, terminalFailure: true, needsAttention: true, anyChange: false, watchedOnly: false },
  allowPlaintextSecrets: false,
  stalledMinutes: { ...DEFAULT_STALLED_MINUTES },
  inbox: { enabled: false, host: '127.0.0.1', port: 0, ...DELIVERY_LOG_DEFAULTS }
}

export class AppSettings {
  private readonly file: string
  private value: SettingsT

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true })
    this.file = join(dataDir, 'settings.json')
    this.value = this.load()
  }

  private load(): SettingsT {
    try {
      const raw = JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, unknown>
      // Unknown or invalid keys fall back to defaults one by one: an old file never blocks start-up.
      const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS }
      for (const [k, v] of Object.entries(raw)) {
        const field = Settings.shape[k as keyof SettingsT]
        if (field && field.safeParse(v).success) merged[k] = v
      }
      return Settings.parse(merged)
    } catch {
      return structuredClone(DEFAULT_SETTINGS)
    }
  }

  get(): SettingsT {
    return structuredClone(this.value)
  }

  update(patch: SettingsPatch): SettingsT {
    // The inbox is merged field by field: a patch that names only its address keeps the retention.
    const inbox = patch.inbox ? { ...this.value.inbox, ...definedOnly(patch.inbox) } : this.value.inbox
    const next = Settings.parse({ ...this.value, ...patch, inbox })
    const tmp = `${this.file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(next, null, 2), { mode: 0o600 })
    renameSync(tmp, this.file)
    this.value = next
    return this.get()
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}
