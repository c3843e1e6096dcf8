// LISTEN on a connection of its own: the hub hears what other hubs and the command line
// changed (NOTIFY rampdesk_operators, rampdesk_watches) at once. A lost connection is
// reopened every second; each (re)connection is reported too, since notifications sent
// while it was down are gone (the callers poll besides, so nothing waits long on a loss).
import pg from 'pg'
import { clientConfig, pgErrorText, type PgTarget } from './pg-connection'

export interface PgListener {
  close(): Promise<void>
}

export function listen(
  target: PgTarget,
  channels: readonly string[],
  on: { notify(channel: string, payload: string): void; connected(): void; error(message: string): void },
  retryMs = 1_000
): PgListener {
  let closed = false
  let client: pg.Client | null = null
  let timer: NodeJS.Timeout | null = null
  let failing = false

  const retry = () => {
    if (closed || timer) return
    timer = setTimeout(() => {
      timer = null
      void open()
    }, retryMs)
    timer.unref()
  }

  async function open(): Promise<void> {
    const c = new pg.Client(clientConfig(target, 'rampdesk-hub-listen'))
    client = c
    c.on('error', (e) => {
      if (!failing) on.error(`the database's notifications were lost: ${pgErrorText(e, target)}; reconnecting`)
      failing = true
      c.end().catch(() => undefined)
      retry()
    })
    c.on('notification', (n) => on.notify(n.channel, n.payload ?? ''))
    try {
      await c.connect()
      for (const ch of channels) await c.query(`LISTEN ${ch}`)
      if (closed) return void (await c.end().catch(() => undefined))
      failing = false
      on.connected()
    } catch (e) {
      if (!failing) on.error(`cannot listen for the database's notifications: ${pgErrorText(e, target)}; retrying every second`)
      failing = true
      c.end().catch(() => undefined)
      retry()
    }
  }
  void open()
  return {
    async close() {
      closed = true
      if (timer) clearTimeout(timer)
      await client?.end().catch(() => undefined)
    }
  }
}
