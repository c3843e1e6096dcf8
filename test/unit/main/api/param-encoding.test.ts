// Learning the service's parameter typing: a 409 "wrong parameter type" is answered
// with the other encoding of the fields in question, what the service took is kept per
// profile (through the store) and used from the first request after a restart.
import { describe, expect, test } from 'vitest'
import { ParamEncodings, type EncodingStore, type LearnedEncoding } from '../../../../src/main/api/param-encoding'
import { mockService } from './mock-service'

function memoryStore(initial: Record<string, LearnedEncoding> = {}): EncodingStore & { data: Record<string, LearnedEncoding> } {
  const data = { ...initial }
  return { data, load: () => ({ ...data }), save: (k, v) => void (data[k] = v) }
}

const bodies = (svc: ReturnType<typeof mockService>, endpoint: Parameters<typeof svc.sent>[0]) =>
  svc.sent(endpoint).map((r) => JSON.parse(r.bodyText) as Record<string, unknown>)

describe('a service that takes the other encoding', () => {
  test('a 409 naming the field: one retry with that field flipped, kept, and used from the start after a restart', async () => {
    const strictTypes = { 'merchantHistory.fiatType': 'integer' as const }
    const store = memoryStore()
    const svc = mockService({ strictTypes })
    const client = svc.client({ encodings: new ParamEncodings(store) })
    await client.merchantHistory({ type: 1, fiatType: 1 })
    expect(bodies(svc, 'merchantHistory').map((b) => [b.type, b.fiatType])).toEqual([
      [1, '1'],
      [1, 1]
    ])
    expect(store.data['merchantHistory.fiatType']).toMatchObject({ encoding: 'integer', confirmed: true })
    expect(store.data['merchantHistory.fiatType']?.learnedAt).toEqual(expect.any(Number))

    // A new client of the same profile (an app restart) pays no 409.
    const again = mockService({ strictTypes })
    await again.client({ encodings: new ParamEncodings(store) }).merchantHistory({ type: 2, fiatType: 1 })
    expect(bodies(again, 'merchantHistory').map((b) => b.fiatType)).toEqual([1])
  })

  test('a bare 409 (no field named): single fields first, then all; the combination found is kept', async () => {
    // This service wants both of priceTicker's fields as integers, and never says which.
    const svc = mockService({ strictTypes: { 'priceTicker.type': 'integer', 'priceTicker.fiatType': 'integer' }, bareTypeErrors: true })
    const enc = new ParamEncodings()
    const client = svc.client({ encodings: enc })
    expect(await client.priceTicker({ type: 1, fiatType: 1 })).toMatchObject({ onramp: { '54': '91.2' } })
    expect(bodies(svc, 'priceTicker')).toEqual([
      { type: '1', fiatType: '1' },
      { type: 1, fiatType: '1' },
      { type: '1', fiatType: 1 },
      { type: 1, fiatType: 1 }
    ])
    expect(enc.snapshot().filter((f) => f.endpoint === 'priceTicker')).toEqual([
      expect.objectContaining({ field: 'type', spec: 'string', encoding: 'integer', confirmed: true }),
      expect.objectContaining({ field: 'fiatType', spec: 'string', encoding: 'integer', confirmed: true })
    ])
    await client.priceTicker({ type: 3, fiatType: 2 })
    expect(bodies(svc, 'priceTicker').at(-1)).toEqual({ type: 3, fiatType: 2 })
  })

  test('fields are learned per endpoint: the same name elsewhere keeps its own encoding', async () => {
    const svc = mockService({ strictTypes: { 'orderStatus.orderId': 'integer' } })
    const client = svc.client()
    await client.orderStatus({ orderId: 77, type: 1 })
    await client.resendWebhook({ orderId: 77 })
    expect(bodies(svc, 'orderStatus').map((b) => b.orderId)).toEqual(['77', 77])
    expect(bodies(svc, 'resendWebhook').map((b) => b.orderId)).toEqual([77])
  })

  test('a service that refuses every encoding: a clear error after the candidates, not a loop', async () => {
    // A field typed beyond both encodings (here: the mock wants a string for an integer field
    // and an integer for the other, but also refuses everything by script).
    const svc = mockService()
    const refuse = { status: 409, json: { status: 0, code: 409, error: 'wrong parameter type' } }
    svc.script('orderStatus', refuse, refuse, refuse, refuse, refuse)
    const e = await svc
      .client()
      .orderStatus({ orderId: 5, type: 2 })
      .catch((x: unknown) => x)
    expect(e).toMatchObject({ kind: 'api', code: 409, retryable: false, endpoint: 'orderStatus' })
    expect((e as Error).message).toMatch(/refused the parameter types of orderStatus in each of 4 encodings tried/)
    expect(svc.sent('orderStatus')).toHaveLength(4)
  })

  test('an endpoint without integer fields is not retried on 409', async () => {
    const svc = mockService()
    svc.script('setWebhookUrl', { status: 409, json: { status: 0, code: 409, error: 'wrong parameter type' } })
    await expect(svc.client().setWebhookUrl({ webhookUrl: 'https://m.example/h' })).rejects.toMatchObject({ kind: 'api', code: 409 })
    expect(svc.sent('setWebhookUrl')).toHaveLength(1)
  })
})

describe('ParamEncodings', () => {
  test("starts from the spec's types and confirms what the service answered", () => {
    const store = memoryStore()
    const enc = new ParamEncodings(store)
    const map = enc.current('merchantHistory', { type: 1, fiatType: 1, page: 1, pageSize: 500, since: 'x' })
    expect(map).toEqual({ type: 'integer', fiatType: 'string', page: 'integer', pageSize: 'integer' })
    expect(enc.encode({ type: 1, fiatType: 1, since: 'x' }, map)).toEqual({ type: 1, fiatType: '1', since: 'x' })
    enc.accepted('merchantHistory', map)
    expect(store.data['merchantHistory.fiatType']).toEqual({ encoding: 'string', confirmed: true, learnedAt: null })
  })

  test("merchantHistory's empty type has one encoding only", () => {
    expect(new ParamEncodings().current('merchantHistory', { type: '' })).toEqual({})
  })

  test('fields never confirmed are tried before confirmed ones', () => {
    const enc = new ParamEncodings(memoryStore({ 'orderStatus.type': { encoding: 'integer', confirmed: true, learnedAt: null } }))
    const first = enc.current('orderStatus', { orderId: 1, type: 1 })
    expect(enc.next('orderStatus', first, first, 'wrong parameter type', [first])).toEqual({ orderId: 'integer', type: 'integer' })
  })

  test('stored encodings of fields the table no longer has are dropped', () => {
    const enc = new ParamEncodings(memoryStore({ 'merchantHistory.gone': { encoding: 'string', confirmed: true, learnedAt: 1 } }))
    expect(enc.snapshot().some((f) => f.field === 'gone')).toBe(false)
  })
})
