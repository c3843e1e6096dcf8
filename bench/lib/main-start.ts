// The main side of the app started the way the Electron main starts it (createServices,
// then start()), with the support log it ships (level info), until the orders view's
// first orders:query is answered through invokeChannel, as IPC calls it. Used in fresh
// worker processes by the start-up and scale benchmarks; the services stay open for the
// caller to query and close.
import { join } from 'node:path'
import { invokeChannel } from '../../src/main/handlers/invoke'
import { createServices, type Services, type ServicesOptions } from '../../src/main/services'
import type { StartSandboxOptions } from '../../src/sandbox'

export interface MainStartFigures {
  /** Process start to the worker module's first line: Node and the bundle's imports. */
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
export const FIRST_ORDERS_QUERY = { filter: { type: 1 }, sort: 'updatedAt:desc', offset: 0, limit: 100 } as const

/**
 * Starts the services on `dataDir` and answers the first orders query; `loadedMs` is when
 * the worker's module began; `shell` what the Electron shell would inject (safeStorage).
 */
export async function startMainSide(
  dataDir: string,
  sandbox: StartSandboxOptions,
  loadedMs: number,
  shell: Pick<ServicesOptions, 'safeStorage' | 'keychain'> = {}
): Promise<{ services: Services; figures: MainStartFigures }> {
  const t0 = performance.now()
  const services = await createServices({
    dataDir,
    exportDir: join(dataDir, 'exports'),
    version: 'bench',
    shellKind: 'electron',
    sandbox,
    ...shell
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
    return { services, figures }
  } catch (e) {
    await services.close()
    throw e
  }
}
