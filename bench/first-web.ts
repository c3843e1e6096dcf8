// The start-up bench's third line: a fresh clone's first `npm run web`. The committed HEAD
// is unpacked into a new directory (git archive: what a clone checks out), its
// node_modules linked to this checkout's (downloading packages is npm's time, not ours),
// then npm's prepare step runs as `npm install` runs it after installing (it builds the
// renderer, scripts/build-web.mjs), then `npm run web -- --temp` until it prints its URL;
// then a second launch, as every later start is. Target: the URL within 10 s of the
// install. At the smoke size the clone gets this checkout's built renderer first, so the
// prepare step finds it fresh instead of spending a full Vite build's seconds, and the
// second launch (the same code as the first) is left out.
import { execFile, spawn } from 'node:child_process'
import { cp, mkdir, symlink } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import { smokeRun } from './lib/smoke'
import { round } from './lib/stats'
import type { BenchContext, BenchLine } from './lib/types'

const ROOT = resolve(import.meta.dirname, '..')
const TARGET_MS = 10_000
const run = promisify(execFile)

/** `npm run web -- --temp --port 0` in `dir`; ms until it printed its URL. */
async function launchToUrl(dir: string): Promise<number> {
  const t0 = performance.now()
  const child = spawn('npm', ['run', 'web', '--', '--temp', '--port', '0'], { cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let err = ''
  child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2_000)))
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  try {
    return await new Promise<number>((done, fail) => {
      createInterface({ input: child.stdout }).on('line', (l) => {
        if (/^Open: \S+/.test(l)) done(round(performance.now() - t0, 0))
      })
      void exited.then(() => fail(new Error(`npm run web exited before it printed its URL: ${err.trim()}`)))
    })
  } finally {
    // npm, tsx and the harness: the whole group, which closes the harness's temporary folder.
    try {
      process.kill(-child.pid!, 'SIGTERM')
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
    }, 10_000)
    await exited
    clearTimeout(timer)
  }
}

export async function firstWebBench(ctx: BenchContext): Promise<BenchLine> {
  const dir = join(ctx.tmp, 'fresh-clone')
  await mkdir(dir, { recursive: true })
  const { stdout: head } = await run('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT })
  await run('sh', ['-c', `git archive HEAD | tar -x -C '${dir}'`], { cwd: ROOT })
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  const smoke = smokeRun()
  if (smoke) await cp(join(ROOT, 'out', 'web'), join(dir, 'out', 'web'), { recursive: true })
  ctx.log(`startup: a fresh clone of ${head.trim()}: npm's prepare step, then npm run web`)
  const t0 = performance.now()
  const prepared = await run('npm', ['run', '--silent', 'prepare'], { cwd: dir })
  const installStepMs = round(performance.now() - t0, 0)
  const firstMs = await launchToUrl(dir)
  const secondMs = smoke ? null : await launchToUrl(dir)
  return {
    bench: 'startup-first-web',
    label: "a fresh clone's first npm run web, after npm install",
    what: `git archive of ${head.trim()} unpacked into a new directory, node_modules linked to this checkout's, npm run prepare (what npm install and npm ci run after installing: ${prepared.stdout.trim()}), then npm run web -- --temp --port 0 (5,000 orders, its default) until it printed "Open: ..."; then a second launch${smoke ? '; smoke size: the renderer copied from this checkout first, so the prepare step skipped its build; no second launch' : ''}`,
    installStepMs,
    firstWebToUrlMs: firstMs,
    baseline: { secondWebToUrlMs: secondMs, target: { firstWebToUrlMs: TARGET_MS } },
    met: { firstWebUnder10s: firstMs < TARGET_MS }
  }
}
