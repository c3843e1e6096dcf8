// Child process of the crash scenario: the whole main side (createServices, a live
// profile on a standalone sandbox run by the parent, the real keychain, the real order
// monitor) in a process of its own, so the parent can SIGKILL it.
//
// Usage: node --import tsx crash-child.ts <dataDir> <sandboxUrl> <apiKey> <mode>
//   mode setup        create the live profile, store its secret (RAMPDESK_CRASH_SECRET), make it active, exit
//   mode sync         start, report every committed page and sync state; exit 0 after one clean sync of every scope
//   mode sync+forget  the same, then delete the profile's secret from the keychain
//   mode forget       delete the active profile's secret from the keychain, exit
//   mode hold-write:N start; when the N-th history page of this run is written but not yet committed,
//                     say "in-write" and stay inside the transaction until killed
// Lines on stdout (written with writeSync, so they are in the pipe before the next step):
//   page {"pages":n,"created":[ids]}    a history page committed
//   in-write {"pages":n,"created":[ids]} a page written, transaction still open
//   synced                             every scope completed a sync without error
import type { SyncState } from '../../src/shared/ipc/contract'
import { createChildServices, say } from './child-support'

const [dataDir, sandboxUrl, apiKey, mode] = process.argv.slice(2)
if (!dataDir || !sandboxUrl || !apiKey || !mode) {
  process.stderr.write('usage: crash-child.ts <dataDir> <sandboxUrl> <apiKey> <setup|sync|sync+forget|forget|hold-write:N>\n')
  process.exit(2)
}

// A fixed key for the fallback store, so every mode reads what the setup stored.
const services = await createChildServices(dataDir, '0.0.0-crash', 7)

if (mode === 'setup') {
  await services.start()
  const h = services.handlers
  const p = await h['profiles:create']({ name: 'Crash live', baseUrl: sandboxUrl, apiKey, serviceName: 'service', kind: 'live' })
  const secret = process.env.RAMPDESK_CRASH_SECRET
  if (!secret) throw new Error('RAMPDESK_CRASH_SECRET is not set')
  const stored = await h['secrets:set']({ profileId: p.id, secret })
  await h['profiles:switch']({ id: p.id })
  await services.close()
  say(`setup ${JSON.stringify({ profileId: p.id, backend: stored.backend })}`)
  process.exit(0)
}

if (mode === 'forget') {
  // Cleanup: the keychain entry outlives the data directory.
  await services.start()
  const id = services.session().profile.id
  await services.handlers['secrets:delete']({ profileId: id })
  await services.close()
  say(`forgot ${JSON.stringify({ profileId: id })}`)
  process.exit(0)
}

const holdAt = mode.startsWith('hold-write:') ? Number(mode.slice('hold-write:'.length)) : null
const scopesClean = new Map<string, boolean>()
let pages = 0
let done = false

services.subscribe((event, payload) => {
  if (event !== 'sync:state' || done) return
  const s = payload as SyncState
  const key = `${s.type}:${s.fiatType}`
  if (s.running) scopesClean.set(key, false)
  else if (scopesClean.has(key) && s.lastError === null) scopesClean.set(key, true)
  else if (s.lastError) say(`error ${JSON.stringify(s.lastError)}`)
  if (mode.startsWith('sync') && scopesClean.size >= 2 && [...scopesClean.values()].every(Boolean)) {
    done = true
    say('synced')
    void (async () => {
      if (mode === 'sync+forget') {
        await services.handlers['secrets:delete']({ profileId: services.session().profile.id })
        say('forgot')
      }
      await services.close()
      process.exit(0)
    })()
  }
})

await services.start()
const session = services.session()
say(`started ${JSON.stringify({ profile: session.profile.id, dir: session.store.database.path ?? null })}`)

// Every write transaction of the session's database passes here: a history page is the
// one whose result carries a cursor.
const sql = session.store.database.sql
const transaction = sql.transaction.bind(sql)
sql.transaction = <R>(fn: () => R): R =>
  transaction(() => {
    const r = fn()
    const page = r as { cursor?: unknown; created?: Array<{ orderId: number }> }
    if (page && typeof page === 'object' && 'cursor' in page && Array.isArray(page.created)) {
      pages++
      const info = JSON.stringify({ pages, created: page.created.map((c) => c.orderId) })
      if (holdAt !== null && pages >= holdAt) {
        say(`in-write ${info}`)
        // Inside BEGIN IMMEDIATE, rows written, COMMIT not reached: wait here for SIGKILL.
        const until = Date.now() + 20_000
        while (Date.now() < until) {
          /* spin: the parent kills us now */
        }
        process.stderr.write('not killed while holding the write\n')
        process.exit(3)
      }
      // Reported after fn but before COMMIT: the parent allows for one page more or less.
      setImmediate(() => say(`page ${info}`))
    }
    return r
  })
