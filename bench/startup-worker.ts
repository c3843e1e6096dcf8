// Child process of the start-up benchmark: the main side of the app started alone, in a
// fresh process, the way the Electron main starts it (createServices, then start()), on a
// warm data directory and with the support log the app ships (level info), until the
// orders view's first orders:query is answered through invokeChannel, as IPC calls it.
// The module's first line runs once its imports are loaded, so the time since the
// process began is Node's start plus loading the bundled services.
import { join } from 'node:path'
import { invokeChannel } from '../src/main/handlers/invoke'
import { createServices } from '../src/main/services'
import { startSandbox, type StartSandboxOptions } from '../src/sandbox'
import { serveWorker } from './lib/child'

const loadedMs = performance.now()

export type StartCommand =
  { cmd: 'start'; dataDir: string; sandbox: StartSandboxOptions } | { cmd: 'sandbox'; sandbox: StartSandboxOptions }

export interface MainStartFigures {
  /** Process start to this module's first line: Node and the bundle's imports. */
  processAndModulesMs: number
  createServicesMs: number
  /** start(): the active profile's session opened and started (with the embedded sandbox for the sandbox profile). */
  startMs: number
  /** The orders view's first query, from sending to the answer. */
  firstQueryMs: number
  /** createServices to the first query answered. */
  servicesToFirstRowsMs: number
  /** Process start to the first query answered. */
  processToFirstRowsMs: number
  rows: number
  total: number
}

/** The orders view's first request (OrderWindow, OrdersView: onramp, newest first, one page). */
const FIRST_ORDERS_QUERY = { filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 100 } as const

serveWorker<StartCommand>(async (m) => {
  if (m.cmd === 'sandbox') {
    // The embedded simulator's generation alone, which a live profile does not pay.
    const s0 = performance.now()
    const sb = await startSandbox({ ...m.sandbox, host: '127.0.0.1', port: 0 })
    const embeddedSandboxMs = Math.round(performance.now() - s0)
    await sb.close()
    return { embeddedSandboxMs }
  }
  const t0 = performance.now()
  const services = await createServices({
    dataDir: m.dataDir,
    exportDir: join(m.dataDir, 'exports'),
    version: 'bench',
    shellKind: 'electron',
    sandbox: m.sandbox
  })
  const t1 = performance.now()
  try {
    await services.start()
    const t2 = performance.now()
    const answer = await invokeChannel(services.handlers, 'orders:query', FIRST_ORDERS_QUERY)
    const t3 = performance.now()
    if (!answer.ok) throw new Error(`orders:query failed: ${answer.error.message}`)
    const figures: MainStartFigures = {
      processAndModulesMs: Math.round(loadedMs),
      createServicesMs: Math.round(t1 - t0),
      startMs: Math.round(t2 - t1),
      firstQueryMs: Math.round(t3 - t2),
      servicesToFirstRowsMs: Math.round(t3 - t0),
      processToFirstRowsMs: Math.round(t3),
      rows: answer.value.rows.length,
      total: answer.value.total
    }
    return figures
  } finally {
    await services.close()
  }
})

process.send?.({ ready: true })
