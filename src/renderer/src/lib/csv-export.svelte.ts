// A CSV export from the orders view: the operator's choices (headers in words or the API
// names for scripts, this type or both in one file, remembered on this computer), the
// export as one state (idle, running with its progress, done with its file, failed), and
// opening the file afterwards: Open / Show in folder on the desktop, a download in the
// browser harness.
import { call, on } from './bridge'
import { errorInfoOf } from './app-state.svelte'
import type { ErrorInfo, ExportHeaders, ExportProgress, ExportResult, OrderFilter } from '../../../shared/ipc/contract'

export type ExportState =
  | { kind: 'idle' }
  | { kind: 'running'; progress: ExportProgress | null; bothTypes: boolean }
  | { kind: 'done'; result: ExportResult; bothTypes: boolean }
  | { kind: 'failed'; error: ErrorInfo }

export interface ExportChoices {
  headers: ExportHeaders
  bothTypes: boolean
}

const KEY = 'rampdesk.csvExport'
const DEFAULTS: ExportChoices = { headers: 'words', bothTypes: false }

function loadChoices(): ExportChoices {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<ExportChoices> | null
    return {
      headers: v?.headers === 'api' ? 'api' : 'words',
      bothTypes: v?.bothTypes === true
    }
  } catch {
    return { ...DEFAULTS }
  }
}

export class CsvExport {
  state = $state<ExportState>({ kind: 'idle' })
  choices = $state<ExportChoices>(loadChoices())
  /** What opening the file last answered (a file no longer there, a shell that cannot). */
  openError = $state<ErrorInfo | null>(null)

  /** Listens for progress; returns the unsubscribe. */
  listen(): () => void {
    return on('export:progress', (p) => {
      if (this.state.kind === 'running') this.state = { ...this.state, progress: p }
    })
  }

  choose(patch: Partial<ExportChoices>): void {
    this.choices = { ...this.choices, ...patch }
    try {
      localStorage.setItem(KEY, JSON.stringify(this.choices))
    } catch {
      // Not remembered (storage refused): the choice holds for this window.
    }
  }

  async run(filter: OrderFilter): Promise<void> {
    if (this.state.kind === 'running') return
    const { headers, bothTypes } = this.choices
    this.openError = null
    this.state = { kind: 'running', progress: null, bothTypes }
    try {
      const result = await call('orders:export', { filter, headers, ...(bothTypes ? { bothTypes: true } : {}) })
      this.state = { kind: 'done', result, bothTypes }
    } catch (e) {
      this.state = { kind: 'failed', error: errorInfoOf(e) }
    }
  }

  async open(action: 'open' | 'show'): Promise<void> {
    if (this.state.kind !== 'done' || !this.state.result.file) return
    this.openError = null
    try {
      await call('app:openExport', { file: this.state.result.file, action })
    } catch (e) {
      this.openError = errorInfoOf(e)
    }
  }
}
