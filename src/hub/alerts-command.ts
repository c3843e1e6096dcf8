// npm run hub -- alerts add-hook|list-hooks|remove-hook|test-hook|log: the outbound alert
// hooks an admin sets on the hub's store (alert-hooks/), also while the hub runs (the
// leading hub reads the hooks afresh every few seconds). A hook's URL may be its secret (a
// Slack URL is): it is shown only as its origin and first path part, and may be given in a
// file (--url-file) so no `ps` and no shell history holds it.
import { CLI_ACTOR } from './hub-audit'
import { UsageError } from './cli-errors'
import { DATA_DIR_OPTION, DATABASE_OPTIONS, resolveOptions, type OptionSpec, type ResolvedOptions } from './cli-options'
import type { CliIo } from './hub-paths'
import type { HubStore } from './hub-store'
import { readFirstLine } from './secret-input'
import { checkHookUrl, hookDisplay, HOOK_FORMATS, type HookFormat } from './alert-hooks/hook-bodies'
import { sendTest } from './alert-hooks/alert-hooks'
import { attemptText } from './alert-hooks/hook-sender'
import type { AlertHook } from './alert-hooks/hook-store'

export const ALERTS_HELP = `  npm run hub -- alerts add-hook URL --format slack|json [--secret-file F] [--data-dir DIR | --database URL]
  npm run hub -- alerts add-hook --url-file F --format slack|json [--secret-file F] ...
                                                  send alerts to this URL (json: signed with F's first line)
  npm run hub -- alerts list-hooks | remove-hook ID | test-hook ID [--data-dir DIR | --database URL]
  npm run hub -- alerts log [--hook ID] [--limit N]   the latest messages and each attempt`

const ALERTS_OPTIONS = {
  'data-dir': DATA_DIR_OPTION,
  ...DATABASE_OPTIONS,
  format: { type: 'string', help: 'slack or json' },
  'secret-file': { type: 'string', help: "the file whose first line signs a json hook's bodies" },
  'url-file': { type: 'string', help: "the file whose first line is the hook's URL" },
  hook: { type: 'string', help: 'a hook id' },
  limit: { type: 'string', help: 'how many' }
} as const satisfies Record<string, OptionSpec>

const SUBCOMMANDS = ['add-hook', 'list-hooks', 'remove-hook', 'test-hook', 'log'] as const

const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString())

function idOf(v: string | undefined, usage: string): number {
  const id = Number(v)
  if (!v || !Number.isSafeInteger(id) || id <= 0) throw new UsageError(usage)
  return id
}

function describe(h: AlertHook): string {
  return `${h.id}\t${h.format}\t${hookDisplay(h.url)}\t${h.format === 'json' ? 'signed' : 'unsigned'}\tadded ${iso(h.createdAt)} by ${h.createdBy}`
}

/** Opens the store the options name (commands.ts: hub.db, or PostgreSQL with --database). */
export type StoreOpener = (o: ResolvedOptions<'data-dir' | keyof typeof DATABASE_OPTIONS>, io: CliIo) => Promise<HubStore>

export async function alertsCommand(args: string[], io: CliIo, openStoreFor: StoreOpener): Promise<number> {
  const [sub, ...rest] = args
  if (!SUBCOMMANDS.includes(sub as (typeof SUBCOMMANDS)[number]))
    throw new UsageError(`unknown alerts command ${sub ?? '(none)'}: ${SUBCOMMANDS.join(', ')}`)
  const warn = (m: string) => io.err(`warning: ${m}`)
  const o = resolveOptions(rest, ALERTS_OPTIONS, { allowPositionals: true, warn })
  const [arg, ...extra] = o.positionals
  if (extra.length) throw new UsageError(`alerts ${sub}: one argument at most`)
  // Everything the command needs from its arguments is checked before the store is opened.
  let hook: Omit<AlertHook, 'id'> | null = null
  if (sub === 'add-hook') {
    const urlFile = o.string('url-file')
    if ((arg === undefined) === (urlFile === undefined)) throw new UsageError('alerts add-hook takes the URL, or --url-file F, not both')
    const url = arg ?? readFirstLine(urlFile!, warn)
    const bad = checkHookUrl(url)
    if (bad) throw new UsageError(`the hook URL ${bad}`)
    const format = o.string('format')
    if (!HOOK_FORMATS.includes(format as HookFormat)) throw new UsageError('alerts add-hook needs --format slack or --format json')
    const secretFile = o.string('secret-file')
    if (format === 'json' && !secretFile)
      throw new UsageError('a json hook is signed: --secret-file F (its first line is the secret the receiver checks)')
    if (format === 'slack' && secretFile)
      throw new UsageError('a slack hook is not signed (its URL is its secret): leave out --secret-file')
    if (arg !== undefined && new URL(url).pathname.split('/').filter(Boolean).length > 1)
      warn('the URL is on the command line: it shows in ps and shell history; prefer --url-file')
    hook = {
      url,
      format: format as HookFormat,
      secret: secretFile ? readFirstLine(secretFile, warn) : null,
      createdAt: Date.now(),
      createdBy: CLI_ACTOR
    }
  }
  const store = await openStoreFor(o, io)
  try {
    const hooks = store.alertHooks
    switch (sub as (typeof SUBCOMMANDS)[number]) {
      case 'add-hook': {
        const h = await hooks.addHook(hook!)
        store.audit.append(CLI_ACTOR, 'alerts:addHook', { id: h.id, format: h.format, target: hookDisplay(h.url) })
        io.out(`added alert hook ${h.id}: ${h.format} to ${hookDisplay(h.url)}`)
        io.out('the leading hub sends it every alert standing now and each raised from now on; try it: alerts test-hook ' + h.id)
        return 0
      }
      case 'list-hooks': {
        const list = await hooks.hooks()
        if (!list.length) io.out('no alert hooks')
        for (const h of list) {
          const [last] = await hooks.messages(1, h.id)
          const lastText = last
            ? `\tlast: ${last.event} ${last.state}${last.lastAnswer ? ` (${last.lastAnswer})` : ''} ${iso(last.finishedAt ?? last.createdAt)}`
            : '\tnothing sent yet'
          io.out(describe(h) + lastText)
        }
        return 0
      }
      case 'remove-hook': {
        const id = idOf(arg, 'alerts remove-hook ID (see alerts list-hooks)')
        if (!(await hooks.removeHook(id, Date.now()))) throw new UsageError(`there is no alert hook ${id} (see alerts list-hooks)`)
        store.audit.append(CLI_ACTOR, 'alerts:removeHook', { id })
        io.out(`removed alert hook ${id}; what it had still to send is given up`)
        return 0
      }
      case 'test-hook': {
        const id = idOf(arg, 'alerts test-hook ID (see alerts list-hooks)')
        const h = (await hooks.hooks()).find((x) => x.id === id)
        if (!h) throw new UsageError(`there is no alert hook ${id} (see alerts list-hooks)`)
        const { attempt, next } = await sendTest({ store: hooks, hub: CLI_ACTOR, now: Date.now }, h)
        store.audit.append(CLI_ACTOR, 'alerts:testHook', { id, httpStatus: attempt.httpStatus })
        const where = `test message to alert hook ${id} (${hookDisplay(h.url)}): ${attemptText(attempt)}`
        if (next.kind === 'delivered') {
          io.out(`${where}, delivered`)
          return 0
        }
        io.err(
          next.kind === 'waiting'
            ? `error: ${where}; the leading hub tries it again with back-off (see alerts log --hook ${id})`
            : `error: ${where}; ${next.why}`
        )
        return 1
      }
      case 'log': {
        const limit = o.string('limit') === undefined ? 20 : idOf(o.string('limit'), 'alerts log --limit N')
        const hookId = o.string('hook') === undefined ? undefined : idOf(o.string('hook'), 'alerts log --hook ID')
        const messages = await hooks.messages(limit, hookId)
        if (!messages.length) io.out('no alert messages')
        for (const m of messages) {
          io.out(
            `${m.id}\thook ${m.hookId}\t${m.event}\t${m.alertId}\t${m.state}\t${m.attempts} attempt${m.attempts === 1 ? '' : 's'}\tqueued ${iso(m.createdAt)}`
          )
          for (const a of await hooks.attempts(m.id)) io.out(`\t${iso(a.at)}\t${a.hub}\t${attemptText(a)}\t${a.ms} ms`)
        }
        return 0
      }
    }
  } finally {
    await store.close()
  }
}
