// Counting CSV records as the hub's stream passes: a line break inside a quoted field
// does not end a record, wherever the chunks are cut. And what a desktop asks its hub
// for: the operator's choices, or, from a hub of an older version, what it can give.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CsvRecordCounter, exportFromHub } from '../../../../src/main/team/team-export'
import type { HubConnection } from '../../../../src/main/team/hub-connection'
import type { ExportInput } from '../../../../src/shared/ipc/contract'
import { csvHeader, csvRow, CSV_BOM } from '../../../../src/shared/domain/csv'

describe('CsvRecordCounter', () => {
  it('counts records, not lines, across any chunking', () => {
    const text =
      CSV_BOM +
      csvHeader(['a', 'b']) +
      csvRow(['plain', 'x']) +
      csvRow(['with\nnewline', 'say "hi"']) +
      csvRow(['"quoted",comma', '\r\nboth']) +
      csvRow(['', ''])
    const bytes = Buffer.from(text, 'utf8')
    for (const size of [1, 2, 3, 7, 64, bytes.length]) {
      const c = new CsvRecordCounter()
      for (let i = 0; i < bytes.length; i += size) c.push(bytes.subarray(i, i + size))
      expect(c.records).toBe(4)
    }
    expect(new CsvRecordCounter().records).toBe(0)
  })
})

/** A hub's answer as the connection hands it over: a status, headers and a body to read or stream. */
function answer(statusCode: number, text: string, headers: Record<string, string> = {}) {
  const body = Object.assign(Readable.from([Buffer.from(text, 'utf8')]), { text: async () => text })
  return { statusCode, headers, body }
}

/** A hub that answers each POST in turn, recording the bodies it was sent. */
function hub(...answers: Array<ReturnType<typeof answer>>) {
  const sent: unknown[] = []
  const connection = {
    post: async (_path: string, body: unknown) => {
      sent.push(body)
      const next = answers.shift()
      if (!next) throw new Error('no more answers')
      return next
    }
  }
  return { sent, connection: connection as unknown as HubConnection }
}

const CSV = CSV_BOM + csvHeader(['Order id']) + csvRow([1]) + csvRow([2])
const OLDER_HUB = JSON.stringify({ ok: false, error: { kind: 'invalid_input', message: 'Unrecognized key: "headers"', retryable: false } })

describe('exportFromHub', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rampdesk-team-export-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  const run = (connection: HubConnection, input: ExportInput) =>
    exportFromHub({ connection, input, dir, at: Date.UTC(2026, 10, 25, 14, 30), onProgress: () => undefined })

  it('asks the hub for what the operator chose, sending only what differs from the defaults, and writes the file', async () => {
    const words = hub(answer(200, CSV, { 'x-rampdesk-total': '2' }))
    const r = await run(words.connection, { filter: { type: 1 }, headers: 'words', bothTypes: true })
    expect(words.sent).toEqual([{ filter: { type: 1 }, headers: 'words', bothTypes: true }])
    expect(r).toMatchObject({ rows: 2, file: 'rampdesk-orders-2026-11-25T14-30-00-000Z.csv', headers: 'words' })
    expect(await readFile(r.path, 'utf8')).toBe(CSV)
    const plain = hub(answer(200, CSV))
    expect(await run(plain.connection, { filter: { type: 2 } })).toMatchObject({
      headers: 'api',
      file: expect.stringMatching(/^rampdesk-offramp-/)
    })
    expect(plain.sent).toEqual([{ filter: { type: 2 } }])
  })

  it('a hub of an older version: asked again with the filter alone, and the answer says the file has the API names', async () => {
    const older = hub(answer(400, OLDER_HUB), answer(200, CSV))
    const r = await run(older.connection, { filter: { type: 1 }, headers: 'words' })
    expect(older.sent).toEqual([{ filter: { type: 1 }, headers: 'words' }, { filter: { type: 1 } }])
    expect(r).toMatchObject({ rows: 2, headers: 'api' })
  })

  it('a hub of an older version cannot put both types in one file: said plainly, nothing written', async () => {
    const older = hub(answer(400, OLDER_HUB))
    await expect(run(older.connection, { filter: { type: 1 }, bothTypes: true })).rejects.toMatchObject({
      info: { kind: 'invalid_input', message: expect.stringMatching(/older version and cannot put both order types in one file/) }
    })
    expect(older.sent).toHaveLength(1)
    expect(await readdir(dir)).toEqual([])
  })

  it('any other refusal is the hub’s own error, not a retry', async () => {
    const refused = hub(
      answer(400, JSON.stringify({ ok: false, error: { kind: 'invalid_input', message: 'search: too long', retryable: false } }))
    )
    await expect(run(refused.connection, { filter: { type: 1 }, headers: 'words' })).rejects.toMatchObject({
      info: { message: 'search: too long' }
    })
    expect(refused.sent).toHaveLength(1)
  })
})
