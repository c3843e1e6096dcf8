// npm run web -- [--port P] [--host 127.0.0.1] [--data-dir DIR] [--orders N] [--seed S]
// Starts Rampdesk in a browser harness on the embedded sandbox and prints the URL (with
// its per-launch token) to open.
import { parseArgs } from 'node:util'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { startWebApp } from './app'

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    'data-dir': { type: 'string' },
    orders: { type: 'string' },
    seed: { type: 'string' },
    temp: { type: 'boolean', default: false }
  }
})

const port = Number(values.port)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, not ${values.port}`)
  process.exit(2)
}

const app = await startWebApp({
  port,
  host: values.host,
  dataDir: values.temp ? undefined : (values['data-dir'] ?? join(homedir(), '.rampdesk-web')),
  sandbox: {
    ...(values.orders !== undefined ? { orders: Number(values.orders) } : {}),
    ...(values.seed !== undefined ? { seed: Number(values.seed) } : {})
  },
  // A change that weakens security is confirmed with a code shown here, never in the browser.
  services: { confirmationCodes: { show: (line) => console.log(line), shownIn: 'the terminal where npm run web runs' } }
})
console.log(`Rampdesk is running in the browser harness (data: ${app.dataDir}).`)
console.log(`Open: ${app.openUrl}`)

let closing = false
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (closing) return
    closing = true
    void app.close().then(() => process.exit(0))
  })
}
