// Runs one benchmark worker as a separate Node process so its memory is its own: the
// parent keeps the sandbox, the child holds only the main-side services. The worker is
// bundled with esbuild first, the way electron-vite bundles the main process, so the
// child carries no TypeScript loader (tsx's loader thread alone adds ~35 MB of RSS);
// without esbuild it falls back to tsx and says so. Messages go both ways over the fork
// IPC channel as JSON.
import { fork, type ChildProcess } from 'node:child_process'
import { rename } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import type * as Esbuild from 'esbuild'

const ROOT = resolve(import.meta.dirname, '../..')
/** Inside the repository, so the bundle resolves its external packages from node_modules. */
const BUNDLE_DIR = join(ROOT, 'out', 'bench')

/** Each entry's bundle, made once per process: a bench starts the same worker many times. */
const bundles = new Map<string, Promise<string | null>>()

/**
 * Bundles an entry point to plain ESM JavaScript in out/bench (two levels below the
 * repository root, so code that finds the root from its own directory still does);
 * returns its path, or null when esbuild is unavailable. Bundled once per process.
 */
export function bundle(entry: string): Promise<string | null> {
  let p = bundles.get(entry)
  if (!p) {
    p = build(entry)
    bundles.set(entry, p)
    p.catch(() => bundles.delete(entry))
  }
  return p
}

async function build(entry: string): Promise<string | null> {
  let esbuild: typeof Esbuild
  try {
    esbuild = await import('esbuild')
  } catch {
    return null
  }
  const outfile = join(BUNDLE_DIR, basename(entry).replace(/\.ts$/, '.mjs'))
  // Written aside, then renamed over the bundle: another bench process running beside
  // this one (the smoke test runs two at a time) may be starting the same worker.
  const aside = `${outfile}.${process.pid}.tmp`
  await esbuild.build({
    entryPoints: [entry],
    outfile: aside,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
    // Bundled CommonJS helpers (libsql's loader) still call require.
    banner: { js: "import { createRequire as __benchRequire } from 'node:module'; const require = __benchRequire(import.meta.url);" }
  })
  await rename(aside, outfile)
  return outfile
}

export interface Worker<In, Out> {
  /** Sends a command and waits for the next message from the child. */
  ask(message: In): Promise<Out>
  /** Asks the child to exit and waits for it. */
  close(): Promise<void>
  readonly process: ChildProcess
  /** 'bundled' (plain node on an esbuild bundle) or 'tsx' (the fallback). */
  readonly runtime: 'bundled' | 'tsx'
}

export async function startWorker<In, Out>(
  modulePath: string,
  opts: { expectReady?: boolean } = {}
): Promise<Worker<In, Out> & { ready: Out }> {
  const bundled = await bundle(modulePath)
  const child = fork(bundled ?? modulePath, [], {
    cwd: ROOT,
    execArgv: bundled ? ['--expose-gc'] : ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json'
  })
  const queue: Array<{ resolve: (m: Out) => void; reject: (e: Error) => void }> = []
  let exited: Error | null = null
  child.on('message', (m) => queue.shift()?.resolve(m as Out))
  const onExit = (code: number | null, signal: string | null) => {
    exited = new Error(`benchmark worker ${modulePath} exited (code ${code}, signal ${signal})`)
    for (const w of queue.splice(0)) w.reject(exited)
  }
  child.on('exit', onExit)
  const next = () =>
    new Promise<Out>((resolve, reject) => {
      if (exited) return reject(exited)
      queue.push({ resolve, reject })
    })
  const ready = opts.expectReady === false ? (undefined as Out) : await next()
  return {
    ready,
    process: child,
    runtime: bundled ? 'bundled' : 'tsx',
    ask(message: In) {
      const p = next()
      child.send(message as object)
      return p
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      child.send({ cmd: 'exit' })
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await gone
      clearTimeout(timer)
    }
  }
}

/** In the child: answers each command with the handler's result (errors as {error}). */
export function serveWorker<In extends { cmd: string }>(handler: (m: In) => Promise<unknown>): void {
  process.on('message', (m: In) => {
    if (m.cmd === 'exit') {
      process.disconnect?.()
      setImmediate(() => process.exit(0))
      return
    }
    handler(m).then(
      (r) => process.send?.(r as object),
      (e: unknown) => process.send?.({ error: e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e) })
    )
  })
}
