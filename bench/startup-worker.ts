// Child process of the start-up benchmark: the main side of the app started alone, in a
// fresh process, the way the Electron main starts it (lib/main-start.ts), on a warm data
// directory, until the orders view's first orders:query is answered.
// The module's first line runs once its imports are loaded, so the time since the
// process began is Node's start plus loading the bundled services.
import { startSandbox, type StartSandboxOptions } from '../src/sandbox'
import { serveWorker } from './lib/child'
import { startMainSide } from './lib/main-start'

const loadedMs = performance.now()

export type { MainStartFigures } from './lib/main-start'

export type StartCommand =
  { cmd: 'start'; dataDir: string; sandbox: StartSandboxOptions } | { cmd: 'sandbox'; sandbox: StartSandboxOptions }

serveWorker<StartCommand>(async (m) => {
  if (m.cmd === 'sandbox') {
    // The embedded simulator's generation alone, which a live profile does not pay.
    const s0 = performance.now()
    const sb = await startSandbox({ ...m.sandbox, host: '127.0.0.1', port: 0 })
    const embeddedSandboxMs = Math.round(performance.now() - s0)
    await sb.close()
    return { embeddedSandboxMs }
  }
  const { services, figures } = await startMainSide(m.dataDir, m.sandbox, loadedMs)
  await services.close()
  return figures
})

process.send?.({ ready: true })
