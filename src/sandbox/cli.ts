// npm run sandbox -- [--host 127.0.0.1] [--port 8787] [--seed 1] [--api-key K]
//   [--api-secret S] [--orders N] [--service-name service] [reading flags] [fault flags]
// Runs the simulator standalone. Prints `listening on http://HOST:PORT`, then the API
// key and secret it accepts, the service name and the control API's per-launch token;
// stops cleanly on SIGINT or SIGTERM. A flag it does not
// know or a value it cannot take: the reason on stderr and exit code 2.
import { parseArgs } from 'node:util'
import type { FaultSpec, FaultTarget } from './faults'
import { startSandbox, type StartSandboxOptions } from './index'
import { isControlToken } from './admin-api'
import { CHOICES, ReadingsError, applyReadings, defaultReadings, type ReadingsInput } from './readings'
import { PARAM_FIELDS, type ParamMode } from './request-schemas'
import { ENDPOINT_NAMES, UNLIMITED_ENDPOINTS, isEndpointName } from './routes'

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
  --clock-offset MS      shift the sandbox clock (server clock skew; a negative one as --clock-offset=-5000)
  --control-token T      the control API's token (header X-Sandbox-Token; default: a new random one, printed)
  --order-ids shared|per-type  one order id sequence for both types, or one per type (the same id in both)
  --onramp-fiats IDS     fiat type ids onramp orders are made in, comma-separated (default: all)
  --offramp-fiats IDS    fiat type ids offramp orders are made in (default: 1, INR)
Readings of the spec's open choices (docs/spec-readings.md; default first):
  --since ${CHOICES.since.join('|')}     merchantHistory since: updatedAt >= since, or > since
  --tie-order ${CHOICES.tieOrder.join('|')}     records sharing an updatedAt: by orderId, a hidden row order, or one that depends on pageSize
  --param-types strict|lenient|field=mode,...
                         parameter types: strict takes only the spec's JSON type (else 409);
                         lenient also the other encoding. A bare mode sets every field, then
                         field=mode pairs override; default lenient for the disputed fields
                         (the id fields typed string, merchantHistory.type), strict elsewhere.
                         Fields: ${PARAM_FIELDS.join(', ')}
  --type-error-text ${CHOICES.typeErrorText.join('|')}  409 text names the fields, or just "wrong parameter type"
  --unknown-limit NAME=N per-minute limit for an endpoint the spec shows none for (repeatable);
                         one of: ${UNLIMITED_ENDPOINTS.join(', ')}
  --limiter ${CHOICES.limiter.join('|')}     limits count in a sliding 60 s window or fixed clock minutes
  --ticker-shape ${CHOICES.tickerShape.join('|')}  priceTicker types 2/3: {offramp}/{onramp,offramp} or {sell}/{buy,sell}
  --limits-shape ${CHOICES.limitsShape.join('|')}  limits types 2/3: {offramp}/{onramp,offramp} or byFiat/{"1","2"}
  --coin-limits-shape ${CHOICES.coinLimitsShape.join('|')}  allCoinLimits: B for some fiats and A for the rest, or always A, or always B
  --no-date-header       send no Date header
  --no-current-timestamp GET currentTimestamp answers 404
  --churn N              before each merchantHistory answer, N open orders advance one step together
  --webhook-payload ${CHOICES.webhookPayloadForm.join('|')}
                         how the webhook payload header is built (the HMAC is over it either way)
  --history-since ${CHOICES.historySince.join('|')}  merchantHistory since filters on updatedAt or createdAt
  --history-order ${CHOICES.historyOrder.join('|')}  merchantHistory ASC/DESC sorts by updatedAt or createdAt
  --first-page 1|0       merchantHistory pages count from 1 (the spec) or from 0
  --missing-page ${CHOICES.missingPage.join('|')}  merchantHistory without page reads the first page, or page 1 (a 0-based service's second)
  --page-size-cap N      merchantHistory pages hold at most N records whatever pageSize asks (offsets in N)
  --offramp-fiat ${CHOICES.offrampFiat.join('|')}  merchantHistory type 2 filters by fiatType, or lists every offramp order
  --history-direction ${CHOICES.historyDirection.join('|')}  merchantHistory honours order, or answers newest first whatever it asks
  --empty-history ${CHOICES.emptyHistory.join('|')}  merchantHistory answers a page with no records as [], as data: null, or as 404
Faults (for every endpoint, or the one named with --fault-endpoint):
  --fault-endpoint NAME  one of: ${ENDPOINT_NAMES.join(', ')}
  --latency MS           added latency
  --error-rate R         chance 0-1 of an injected error ...
  --error-status S       ... with this status (default 500; 503 = maintenance)
  --storm                every request gets 429
  --malformed R          chance of a body that is not JSON
  --truncate R           chance of a body cut off mid-way
  --drop R               chance of a dropped connection
  --help                 this text`

/** A command line the sandbox cannot run with: the reason, then exit code 2. */
class UsageError extends Error {}

function num(v: string | undefined, flag: string): number | undefined {
  if (v === undefined) return undefined
  const n = Number(v)
  if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`${flag} needs a number, got ${JSON.stringify(v)}`)
  return n
}

/** "lenient", "merchantHistory.fiatType=strict,priceTicker.type=strict", or a mode then pairs. */
function paramTypesFlag(v: string): ReadingsInput['paramTypes'] {
  let base: ParamMode | undefined
  const pairs: Record<string, ParamMode> = {}
  for (const item of v.split(',').map((x) => x.trim())) {
    if (item === 'strict' || item === 'lenient') {
      base = item
      continue
    }
    const [field, mode, ...rest] = item.split('=')
    if (field === undefined || (mode !== 'strict' && mode !== 'lenient') || rest.length > 0)
      throw new UsageError(`--param-types: ${JSON.stringify(item)} is not strict, lenient or field=strict|lenient`)
    if (!PARAM_FIELDS.includes(field)) throw new UsageError(`--param-types: unknown field ${field}; fields are ${PARAM_FIELDS.join(', ')}`)
    pairs[field] = mode
  }
  if (Object.keys(pairs).length === 0) return base
  return base === undefined ? pairs : { ...Object.fromEntries(PARAM_FIELDS.map((k) => [k, base])), ...pairs }
}

function unknownLimitsFlag(items: string[] | undefined): ReadingsInput['unknownLimits'] {
  if (items === undefined) return undefined
  const out: Record<string, number> = {}
  for (const item of items) {
    const m = /^([A-Za-z]+)=(\d+)$/.exec(item.trim())
    if (!m) throw new UsageError(`--unknown-limit: ${JSON.stringify(item)} is not NAME=N (e.g. merchantHistory=10)`)
    const [, name = '', n = ''] = m
    if (!isEndpointName(name)) throw new UsageError(`--unknown-limit: unknown endpoint ${name}; one of ${UNLIMITED_ENDPOINTS.join(', ')}`)
    out[name] = Number(n)
  }
  return out
}

function orderIdsFlag(v: string | undefined): StartSandboxOptions['orderIds'] {
  if (v === undefined) return undefined
  if (v === 'shared') return 'shared'
  if (v === 'per-type') return 'perType'
  throw new UsageError(`--order-ids must be shared or per-type, not ${JSON.stringify(v)}`)
}

/** "1,2,3,7": fiat type ids. */
function fiatListFlag(v: string, flag: string): number[] {
  const ids = v.split(',').map((x) => x.trim())
  if (ids.length === 0 || ids.some((x) => !/^\d+$/.test(x)))
    throw new UsageError(`${flag} needs fiat type ids separated by commas (e.g. 1,2,3,7)`)
  return ids.map(Number)
}

/** The reading flags as startSandbox readings, each checked on its own so an error names its flag. */
function readingsFlags(values: Record<string, string | boolean | string[] | undefined>): ReadingsInput {
  const str = (k: string): string | undefined => values[k] as string | undefined
  const given: [flag: string, key: keyof ReadingsInput, value: unknown][] = [
    ['--since', 'since', str('since')],
    ['--tie-order', 'tieOrder', str('tie-order')],
    ['--param-types', 'paramTypes', str('param-types') === undefined ? undefined : paramTypesFlag(str('param-types') as string)],
    ['--type-error-text', 'typeErrorText', str('type-error-text')],
    ['--unknown-limit', 'unknownLimits', unknownLimitsFlag(values['unknown-limit'] as string[] | undefined)],
    ['--limiter', 'limiter', str('limiter')],
    ['--ticker-shape', 'tickerShape', str('ticker-shape')],
    ['--limits-shape', 'limitsShape', str('limits-shape')],
    ['--coin-limits-shape', 'coinLimitsShape', str('coin-limits-shape')],
    ['--no-date-header', 'dateHeader', values['no-date-header'] ? false : undefined],
    ['--no-current-timestamp', 'currentTimestamp', values['no-current-timestamp'] ? false : undefined],
    ['--churn', 'churnPerHistoryRequest', num(str('churn'), '--churn')],
    ['--webhook-payload', 'webhookPayloadForm', str('webhook-payload')],
    ['--history-since', 'historySince', str('history-since')],
    ['--history-order', 'historyOrder', str('history-order')],
    ['--first-page', 'firstPage', num(str('first-page'), '--first-page')],
    ['--missing-page', 'missingPage', str('missing-page')],
    ['--page-size-cap', 'pageSizeCap', num(str('page-size-cap'), '--page-size-cap')],
    ['--offramp-fiat', 'offrampFiat', str('offramp-fiat')],
    ['--history-direction', 'historyDirection', str('history-direction')],
    ['--empty-history', 'emptyHistory', str('empty-history')]
  ]
  const input: Record<string, unknown> = {}
  for (const [flag, key, value] of given) {
    if (value === undefined) continue
    try {
      applyReadings(defaultReadings(), { [key]: value })
    } catch (e) {
      if (e instanceof ReadingsError) throw new UsageError(`${flag}: ${e.message}`)
      throw e
    }
    input[key] = value
  }
  return input as ReadingsInput
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
      'control-token': { type: 'string' },
      'fault-endpoint': { type: 'string' },
      latency: { type: 'string' },
      'error-rate': { type: 'string' },
      'error-status': { type: 'string' },
      storm: { type: 'boolean' },
      malformed: { type: 'string' },
      truncate: { type: 'string' },
      drop: { type: 'string' },
      since: { type: 'string' },
      'tie-order': { type: 'string' },
      'param-types': { type: 'string' },
      'type-error-text': { type: 'string' },
      'unknown-limit': { type: 'string', multiple: true },
      limiter: { type: 'string' },
      'ticker-shape': { type: 'string' },
      'limits-shape': { type: 'string' },
      'coin-limits-shape': { type: 'string' },
      'no-date-header': { type: 'boolean' },
      'no-current-timestamp': { type: 'boolean' },
      churn: { type: 'string' },
      'webhook-payload': { type: 'string' },
      'history-since': { type: 'string' },
      'history-order': { type: 'string' },
      'first-page': { type: 'string' },
      'missing-page': { type: 'string' },
      'page-size-cap': { type: 'string' },
      'offramp-fiat': { type: 'string' },
      'history-direction': { type: 'string' },
      'empty-history': { type: 'string' },
      'order-ids': { type: 'string' },
      'onramp-fiats': { type: 'string' },
      'offramp-fiats': { type: 'string' },
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
  if (target !== '*' && !isEndpointName(target)) throw new UsageError(`--fault-endpoint: unknown endpoint ${target}`)
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
    faults: Object.keys(fault).length > 0 ? { [target]: fault } : undefined,
    readings: readingsFlags(values),
    controlToken: values['control-token'],
    orderIds: orderIdsFlag(values['order-ids']),
    orderFiats: {
      ...(values['onramp-fiats'] !== undefined ? { onramp: fiatListFlag(values['onramp-fiats'], '--onramp-fiats') } : {}),
      ...(values['offramp-fiats'] !== undefined ? { offramp: fiatListFlag(values['offramp-fiats'], '--offramp-fiats') } : {})
    }
  }
  if (opts.controlToken !== undefined && !isControlToken(opts.controlToken))
    throw new UsageError('--control-token must be 16-256 printable ASCII characters')
  const sb = await startSandbox(opts)
  console.log(`listening on ${sb.url}`)
  console.log(`api key: ${sb.apiKey}`)
  console.log(`api secret: ${sb.apiSecret}`)
  console.log(`service name: ${sb.serviceName}`)
  console.log(`control token: ${sb.controlToken}  (control API: ${sb.url}/__sandbox/info with the header X-Sandbox-Token)`)
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
  // parseArgs refuses unknown flags and missing values with ERR_PARSE_ARGS_* codes.
  const usage = e instanceof UsageError || (e instanceof Error && String((e as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS'))
  console.error(e instanceof Error ? e.message : e)
  if (usage) console.error('npm run sandbox -- --help lists the flags')
  process.exit(usage ? 2 : 1)
})
