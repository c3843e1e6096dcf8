// npm run sandbox -- [--host 127.0.0.1] [--port 8787] [--seed 1] [--api-key K]
//   [--api-secret S] [--orders N] [--service-name service] [fault flags]
// Runs the simulator standalone. Prints `listening on http://HOST:PORT`, then the API
// key and secret it accepts; stops cleanly on SIGINT or SIGTERM.
import { parseArgs } from 'node:util'
import { endpointNames } from '../shared/api/endpoints'
import type { FaultSpec, FaultTarget } from './faults'
import { startSandbox, type StartSandboxOptions } from './index'

const HELP = `Usage: npm run sandbox -- [options]

  --host H               address to bind (default 127.0.0.1)
  --port P               port (default 8787; 0 picks a free one)
  --seed N               seed of all generated data (default 1)
  --api-key K            API key the sandbox accepts (default: the demo key)
  --api-secret S         its secret (default: the demo secret)
  --orders N             historical orders to pre-create (default 500)
  --service-name NAME    first path segment and header word (default service)
  --no-generate          do not create or advance orders on a timer
  --tick-ms MS           generator period (default 2000)
  --timestamp-window MS  oldest signed timestamp accepted (default 60000)
  --timestamp-tolerance MS  how far ahead of the sandbox clock a timestamp may be (default 5000)
  --clock-offset MS      shift the sandbox clock (server clock skew)
Faults (for every endpoint, or the one named with --fault-endpoint):
  --fault-endpoint NAME  one of: ${endpointNames.join(', ')}
  --latency MS           added latency
  --error-rate R         chance 0-1 of an injected error ...
  --error-status S       ... with this status (default 500; 503 = maintenance)
  --storm                every request gets 429
  --malformed R          chance of a body that is not JSON
  --truncate R           chance of a body cut off mid-way
  --drop R               chance of a dropped connection
  --help                 this text`

function num(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined
  const n = Number(v)
  if (!Number.isFinite(n)) {
    console.error(`${flag} needs a number, got ${JSON.stringify(v)}`)
    process.exit(2)
  }
  return n
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      seed: { type: 'string' },
      'api-key': { type: 'string' },
      'api-secret': { type: 'string' },
      orders: { type: 'string' },
      'service-name': { type: 'string' },
      'no-generate': { type: 'boolean' },
      'tick-ms': { type: 'string' },
      'timestamp-window': { type: 'string' },
      'timestamp-tolerance': { type: 'string' },
      'clock-offset': { type: 'string' },
      'fault-endpoint': { type: 'string' },
      latency: { type: 'string' },
      'error-rate': { type: 'string' },
      'error-status': { type: 'string' },
      storm: { type: 'boolean' },
      malformed: { type: 'string' },
      truncate: { type: 'string' },
      drop: { type: 'string' },
      help: { type: 'boolean' }
    },
    strict: true,
    allowPositionals: false
  })
  if (values.help) {
    console.log(HELP)
    return
  }
  const target = (values['fault-endpoint'] ?? '*') as FaultTarget
  if (target !== '*' && !(endpointNames as string[]).includes(target)) {
    console.error(`--fault-endpoint: unknown endpoint ${target}`)
    process.exit(2)
  }
  const fault: FaultSpec = {}
  const set = <K extends keyof FaultSpec>(k: K, v: FaultSpec[K] | undefined): void => {
    if (v !== undefined) fault[k] = v
  }
  set('latencyMs', num(values.latency, '--latency'))
  set('errorRate', num(values['error-rate'], '--error-rate'))
  set('errorStatus', num(values['error-status'], '--error-status'))
  set('rateLimitStorm', values.storm)
  set('malformedJsonRate', num(values.malformed, '--malformed'))
  set('truncateRate', num(values.truncate, '--truncate'))
  set('dropRate', num(values.drop, '--drop'))

  const opts: StartSandboxOptions = {
    host: values.host ?? '127.0.0.1',
    port: num(values.port, '--port') ?? 8787,
    seed: num(values.seed, '--seed') ?? 1,
    apiKey: values['api-key'],
    apiSecret: values['api-secret'],
    orders: num(values.orders, '--orders'),
    serviceName: values['service-name'],
    autoGenerate: !values['no-generate'],
    tickMs: num(values['tick-ms'], '--tick-ms'),
    timestampWindowMs: num(values['timestamp-window'], '--timestamp-window'),
    timestampToleranceMs: num(values['timestamp-tolerance'], '--timestamp-tolerance'),
    clockOffsetMs: num(values['clock-offset'], '--clock-offset'),
    faults: Object.keys(fault).length > 0 ? { [target]: fault } : undefined
  }
  const sb = await startSandbox(opts)
  console.log(`listening on ${sb.url}`)
  console.log(`api key: ${sb.apiKey}`)
  console.log(`api secret: ${sb.apiSecret}`)
  console.log(`service name: ${sb.serviceName}  (control API: ${sb.url}/__sandbox/info)`)
  // The generator's timer is unref'd, so a timer keeps the standalone process alive.
  const keepAlive = setInterval(() => undefined, 1 << 30)
  const stop = (signal: string): void => {
    console.log(`${signal}: stopping`)
    clearInterval(keepAlive)
    void sb.close().then(() => process.exit(0))
  }
  process.once('SIGINT', () => stop('SIGINT'))
  process.once('SIGTERM', () => stop('SIGTERM'))
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e)
  process.exit(1)
})
