// The bench results files: a run's lines merged over the previous ones by bench module,
// written to latest.json and to the dated copy of the day the run started.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  datedName,
  mergeResults,
  runName,
  writeResults,
  type ResultLine,
  type ResultsFile,
  type RunFile
} from '../../../bench/lib/results-file'
import type { MachineInfo } from '../../../bench/lib/machine'

const machine: MachineInfo = { nproc: 2, memoryGiB: 8, cpuModel: 'test', node: 'v20', platform: 'linux x64' }
const line = (bench: string, at = '2026-03-02T10:00:00.000Z'): ResultLine => ({ bench, baseline: {}, at, durationMs: 1 })
const moduleOf = (n: string) => (n.startsWith('renderer-') ? 'renderer' : n.replace(/-minimum$/, ''))

describe('mergeResults', () => {
  it('replaces the lines of the modules that ran, keeps the others, and takes the new machine and time', () => {
    const previous: ResultsFile = {
      machine: { ...machine, cpuModel: 'old' },
      updatedAt: 'then',
      lines: [line('history'), line('changes'), line('changes-minimum'), line('renderer-scroll')]
    }
    const merged = mergeResults(
      previous,
      [line('changes', 'now'), line('changes-minimum', 'now')],
      new Set(['changes']),
      moduleOf,
      machine,
      'now'
    )
    expect(merged.lines.map((l) => `${l.bench}@${l.at}`)).toEqual([
      'history@2026-03-02T10:00:00.000Z',
      'renderer-scroll@2026-03-02T10:00:00.000Z',
      'changes@now',
      'changes-minimum@now'
    ])
    expect(merged.machine.cpuModel).toBe('test')
    expect(merged.updatedAt).toBe('now')
  })

  it('starts from nothing when there is no previous file', () => {
    expect(mergeResults(null, [line('startup')], new Set(['startup']), moduleOf, machine, 'now').lines.map((l) => l.bench)).toEqual([
      'startup'
    ])
  })
})

describe('writeResults', () => {
  let dir = ''
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('names the dated copy by the UTC day the run started', () => {
    expect(datedName(new Date('2026-03-02T23:59:59.000Z'))).toBe('2026-03-02.json')
    expect(datedName(new Date('2026-03-03T00:00:00.000Z'))).toBe('2026-03-03.json')
  })

  it('merges into latest.json and the dated copy, each over its own previous lines', async () => {
    dir = await mkdtemp(join(tmpdir(), 'bench-results-'))
    const older: ResultsFile = { machine, updatedAt: 'earlier', lines: [line('history'), line('startup')] }
    await writeFile(join(dir, 'latest.json'), JSON.stringify(older))
    const startedAt = new Date('2026-03-02T09:00:00.000Z')
    const run = { moduleOf, machine, startedAt, command: ['startup'], loadAverage: { atStart: [1, 2, 3], atEnd: [4, 5, 6] } }
    const written = await writeResults(dir, { ...run, fresh: [line('startup', 'now')], ran: new Set(['startup']) })
    expect(written).toEqual([join(dir, 'latest.json'), join(dir, '2026-03-02.json'), join(dir, 'runs', '2026-03-02T09-00-00Z.json')])
    const latest = JSON.parse(await readFile(join(dir, 'latest.json'), 'utf8')) as ResultsFile
    const dated = JSON.parse(await readFile(join(dir, '2026-03-02.json'), 'utf8')) as ResultsFile
    expect(latest.lines.map((l) => `${l.bench}@${l.at}`)).toEqual(['history@2026-03-02T10:00:00.000Z', 'startup@now'])
    // The dated copy holds only what was measured that day.
    expect(dated.lines.map((l) => `${l.bench}@${l.at}`)).toEqual(['startup@now'])
    // A second subset run the same day adds to the dated copy.
    const laterStart = new Date('2026-03-02T09:30:05.000Z')
    await writeResults(dir, {
      ...run,
      startedAt: laterStart,
      command: ['changes'],
      fresh: [line('changes', 'later')],
      ran: new Set(['changes'])
    })
    const again = JSON.parse(await readFile(join(dir, '2026-03-02.json'), 'utf8')) as ResultsFile
    expect(again.lines.map((l) => l.bench)).toEqual(['startup', 'changes'])
    // Each run keeps a file of its own, with its command and load, which the next run leaves alone.
    const first = JSON.parse(await readFile(join(dir, runName(startedAt)), 'utf8')) as RunFile
    expect(first).toEqual({
      machine,
      startedAt: '2026-03-02T09:00:00.000Z',
      command: ['startup'],
      loadAverage: { atStart: [1, 2, 3], atEnd: [4, 5, 6] },
      lines: [line('startup', 'now')]
    })
    const second = JSON.parse(await readFile(join(dir, runName(laterStart)), 'utf8')) as RunFile
    expect(second.lines.map((l) => `${l.bench}@${l.at}`)).toEqual(['changes@later'])
  })
})
