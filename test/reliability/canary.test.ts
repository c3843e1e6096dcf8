// Secrets: one run of the whole main side (a child process behind the web harness, so
// its stdout and stderr are the logs) with a canary as the live profile's API secret,
// through sync, quotes, webhooks, errors (5xx, malformed bodies, the service's clock
// 10 minutes off, a wrong API key), a SIGKILL mid-sync and a restart on the stored
// secret. Afterwards the canary, in plain text, hex or base64 at any alignment, is in no
// log (stdout, stderr and the support log under logs/, which must hold the run's API
// calls, sync runs, webhooks and errors, and none of the orders' wallet addresses), no
// file under the app's data directory (database, WAL, settings, profiles, secret files,
// exports), no response of any channel and no event frame.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type Sandbox } from '../../src/sandbox'
import { REPO_ROOT, recordScenario } from './support'

const CHILD = resolve(__dirname, 'canary-child.ts')
const CANARY = `CANARYsecret${Math.random().toString(36).slice(2, 12)}XyZ0123456789`

let sb: Sandbox
let root: string
let dataDir: string
let transcript: string

interface Run {
  stdout: string
  stderr: string
  code: number | null
  signal: NodeJS.Signals | null
}

function runChild(mode: 'run' | 'restart'): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, transcript, sb.url, sb.apiKey, mode, sb.controlToken], {
      cwd: REPO_ROOT,
      env: { ...process.env, RAMPDESK_CANARY: CANARY },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (c: string) => {
      stdout += c
      if (stdout.includes('crash-me\n') && child.exitCode === null && !child.killed) child.kill('SIGKILL')
    })
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.on('error', fail)
    const guard = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.on('close', (code, signal) => {
      clearTimeout(guard)
      done({ stdout, stderr, code, signal })
    })
  })
}

/** The canary as it could appear: plain, hex, and base64 (standard and url-safe) at each byte alignment. */
function forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8')
  const out = [secret, bytes.toString('hex'), bytes.toString('hex').toUpperCase()]
  for (let k = 0; k < 3; k++) {
    const b64 = Buffer.concat([Buffer.alloc(k, 0x41), bytes]).toString('base64')
    // Skip the characters that mix in the leading bytes and the padded tail.
    const core = b64.slice(Math.ceil((k * 4) / 3) + 1, b64.length - 4)
    out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'))
  }
  return out
}

function leaks(text: string | Buffer): string[] {
  const s = typeof text === 'string' ? text : text.toString('latin1')
  return forms(CANARY).filter((f) => s.includes(f))
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    return e.isDirectory() ? filesUnder(p) : e.isFile() ? [p] : []
  })
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'rampdesk-rel-canary-'))
  dataDir = join(root, 'data')
  transcript = join(root, 'transcript.jsonl')
  sb = await startSandbox({ seed: 8, orders: 400, autoGenerate: false, apiSecret: CANARY, apiKey: 'canary-key' })
}, 60_000)

afterAll(async () => {
  await sb?.close()
  if (!process.env.CANARY_KEEP) rmSync(root, { recursive: true, force: true })
  else console.log('kept', root)
})

describe('secrets: the canary stays in the keychain', () => {
  it('appears in no log, no file under the data directory, no channel response and no event', async () => {
    // The search itself works: each form is found where it is planted.
    for (const f of forms(CANARY)) expect(leaks(`xx${f}yy`).length).toBeGreaterThan(0)
    expect(
      leaks(Buffer.from(JSON.stringify({ payload: Buffer.from(`{"secret":"${CANARY}"}`).toString('base64') }))).length
    ).toBeGreaterThan(0)

    const first = await runChild('run')
    expect(first.signal, first.stderr).toBe('SIGKILL')
    expect(first.stdout).toContain('crash-me')
    sb.control.clearFaults()
    const backend = (JSON.parse(/backend (.*)/.exec(first.stdout)?.[1] ?? '{}') as { backend?: string }).backend
    // keytar under a Secret Service; without one, the encrypted safeStorage file (searched below).
    expect(['keychain', 'safeStorage']).toContain(backend)
    // The production webhook URL was confirmed with main's typed code.
    expect(first.stdout).toContain('webhook url true')
    const second = await runChild('restart')
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toContain('closed')

    const transcriptText = readFileSync(transcript, 'utf8')
    const frames = transcriptText
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; channel: string; text: string })
    const channelsSeen = new Set(frames.filter((f) => f.kind === 'rpc').map((f) => f.channel))
    const eventFrames = frames
      .filter((f) => f.kind === 'event')
      .map((f) => f.text)
      .join('')
    const allText = frames.map((f) => f.text).join('\n')
    const eventNames = new Set([...eventFrames.matchAll(/^event: (.+)$/gm)].map((m) => m[1]))
    // The run did what it says: the service accepted the secret, errors happened, webhooks arrived.
    expect(allText.includes('the key and secret were accepted'), 'a connection test succeeded').toBe(true)
    expect(eventNames).toContain('webhook:delivery')
    expect(eventNames).toContain('sync:state')
    const kinds = new Set([...allText.matchAll(/"kind":"([a-z_]+)"/g)].map((m) => m[1]))
    expect(kinds.has('auth') || kinds.has('clock_skew'), `error kinds seen: ${[...kinds].join(', ')}`).toBe(true)
    expect(sb.control.listDeliveries().some((d) => d.ok)).toBe(true)

    // The support log was written by both runs (the killed one included: its writes are
    // synchronous) and says what happened, so searching it below means something.
    const logFiles = filesUnder(join(dataDir, 'logs'))
    const logLines = logFiles
      .flatMap((f) => readFileSync(f, 'utf8').split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string; level: string })
    const said = (msg: string) => logLines.filter((l) => l.msg === msg).length
    expect(said('started'), 'one start line per run').toBe(2)
    expect(said('api call')).toBeGreaterThan(10)
    expect(said('sync run')).toBeGreaterThan(0)
    expect(said('webhook')).toBeGreaterThan(0)
    expect(logLines.some((l) => l.level === 'warn' || l.level === 'error')).toBe(true)
    const logText = logFiles.map((f) => readFileSync(f, 'utf8')).join('\n')
    const wallets = sb.control
      .groundTruth()
      .map((o) => String(o.record.walletAddress ?? ''))
      .filter((a) => a.length > 8)
    expect(wallets.filter((a) => logText.includes(a))).toEqual([])

    const files = filesUnder(dataDir)
    const found: string[] = []
    for (const f of files) {
      const hit = leaks(readFileSync(f))
      if (hit.length) found.push(`${relative(dataDir, f)} (${hit.length} forms)`)
    }
    for (const [name, text] of [
      ['stdout of the first run', first.stdout],
      ['stderr of the first run', first.stderr],
      ['stdout of the restart', second.stdout],
      ['stderr of the restart', second.stderr],
      ['channel responses and events', transcriptText],
      ['channel responses and events (unescaped)', allText]
    ] as const) {
      if (leaks(text).length) found.push(name)
    }
    const bytes = files.reduce((n, f) => n + statSync(f).size, 0)
    recordScenario({
      scenario: 'secrets: canary API secret',
      injected: [
        'a canary as the live profile API secret (standalone sandbox started with it)',
        `two runs of the main side in child processes: sync, quotes, webhooks (dummy, completions, resends, verify), errors (5xx, malformed, clock 10 min off, wrong API key), SIGKILL mid-sync, restart on the stored secret (stored in: ${backend})`
      ],
      checked: [
        `${files.length} files (${bytes} bytes) under the data directory, database and WAL included`,
        `the support log: ${logLines.length} lines in ${logFiles.length} files (${said('api call')} API calls, ${said('sync run')} sync runs, ${said('webhook')} webhooks), none of ${wallets.length} wallet addresses in it`,
        `stdout and stderr of both runs`,
        `${frames.filter((f) => f.kind === 'rpc').length} responses of ${channelsSeen.size} channels and ${eventNames.size} kinds of event frames (errors among them: ${[...kinds].filter((k) => !['live', 'sandbox'].includes(k!)).join(', ')})`,
        'forms searched: plain, hex, base64 and base64url at each alignment'
      ],
      lost: found.map((f) => `canary found in ${f}`)
    })
    expect(found).toEqual([])
  }, 240_000)
})
