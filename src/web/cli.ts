// npm run web -- [--port P] [--host 127.0.0.1] [--allow-remote] [--data-dir DIR] [--temp] [--orders N] [--seed S]
// Starts Rampdesk in a browser harness on the embedded sandbox and prints the URL (a
// per-launch <random>.localhost name, with its token) to open. The sandbox starts with
// DEFAULT_WEB_ORDERS orders (--orders for more or fewer; docs/development.md). A --host
// beyond loopback is refused unless --allow-remote is given.
import { parseArgs } from 'node:util'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { startWebApp } from './app'
import { bindProblem } from './server'

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    'allow-remote': { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    orders: { type: 'string' },
    seed: { type: 'string' },
    temp: { type: 'boolean', default: false }
  }
})

/** Enough for the orders table to scroll, filter and search like a working day's; synced in seconds. */
const DEFAULT_WEB_ORDERS = 5000

const port = Number(values.port)
const orders = values.orders === undefined ? DEFAULT_WEB_ORDERS : Number(values.orders)
if (!Number.isInteger(orders) || orders < 0) {
  console.error(`--orders must be a whole number of orders, not ${values.orders}`)
  process.exit(2)
}
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, not ${values.port}`)
  process.exit(2)
}

const problem = bindProblem(values.host, values['allow-remote'])
if (problem) {
  console.error(problem)
  process.exit(2)
}

const app = await startWebApp({
  port,
  host: values.host,
  allowRemote: values['allow-remote'],
  dataDir: values.temp ? undefined : (values['data-dir'] ?? join(homedir(), '.rampdesk-web')),
  sandbox: {
    orders,
    ...(values.seed !== undefined ? { seed: Number(values.seed) } : {})
  },
  // A change that weakens security is confirmed with a code shown here, never in the browser.
  services: { confirmationCodes: { show: (line) => console.log(line), shownIn: 'the terminal where npm run web runs' } }
})
console.log(`Rampdesk is running in the browser harness (data: ${app.dataDir}).`)
console.log(
  `The sandbox starts with ${orders.toLocaleString('en-US')} orders${values.orders === undefined ? '; --orders N for another number (--orders 100000 for a full-size table, a few minutes to sync)' : ''}.`
)
console.log(`Open: ${app.openUrl}`)
if (app.harness.remoteUrl) {
  console.log(`From another machine: ${app.harness.remoteUrl}?token=${app.harness.token}`)
  console.log('Warning: plain http beyond this computer: the token and everything shown travel readable on the network.')
}

let closing = false
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (closing) return
    closing = true
    void app.close().then(() => process.exit(0))
  })
}
