// The results files `npm run bench` writes: bench/results/latest.json and a dated copy,
// bench/results/YYYY-MM-DD.json, each the lines of this run merged over the file's
// previous lines, so a subset run replaces only its own benches. The dated copy holds
// only lines measured on that day (UTC). Every run also gets a file of its own,
// bench/results/runs/<start time>.json, with the command and the load average at its
// start and end, which no later run replaces: a set of repeated runs is published whole.
// A figure quoted in the docs names the file it came from, committed with the docs.
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { MachineInfo } from './machine'
import type { BenchLine } from './types'

export type ResultLine = BenchLine & { at: string; durationMs: number }

export interface ResultsFile {
  machine: MachineInfo
  updatedAt: string
  lines: ResultLine[]
}

/** The previous lines, minus those of the bench modules that ran, then this run's lines. */
export function mergeResults(
  previous: ResultsFile | null,
  fresh: readonly ResultLine[],
  ran: ReadonlySet<string>,
  moduleOf: (lineName: string) => string,
  machine: MachineInfo,
  updatedAt: string
): ResultsFile {
  const kept = (previous?.lines ?? []).filter((l) => !ran.has(moduleOf(l.bench)))
  return { machine, updatedAt, lines: [...kept, ...fresh] }
}

/** One run's own file: what was run, under what load, and its lines. */
export interface RunFile {
  machine: MachineInfo
  startedAt: string
  /** The arguments given to npm run bench. */
  command: string[]
  /** os.loadavg() (1, 5, 15 minutes) when the run started and when it ended. */
  loadAverage: { atStart: number[]; atEnd: number[] }
  lines: ResultLine[]
}

/** runs/2026-03-02T09-00-00Z.json for a run started at `startedAt` (UTC, to the second). */
export function runName(startedAt: Date): string {
  return join('runs', `${startedAt.toISOString().slice(0, 19).replace(/:/g, '-')}Z.json`)
}

/** bench/results/YYYY-MM-DD.json for a run started at `startedAt` (UTC date). */
export function datedName(startedAt: Date): string {
  return `${startedAt.toISOString().slice(0, 10)}.json`
}

async function readResults(file: string): Promise<ResultsFile | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as ResultsFile
  } catch {
    return null
  }
}

/** Merges this run into latest.json and the dated copy, and writes its own run file; returns the paths written. */
export async function writeResults(
  dir: string,
  run: {
    fresh: readonly ResultLine[]
    ran: ReadonlySet<string>
    moduleOf: (lineName: string) => string
    machine: MachineInfo
    startedAt: Date
    command: string[]
    loadAverage: RunFile['loadAverage']
  }
): Promise<string[]> {
  await mkdir(join(dir, 'runs'), { recursive: true })
  const updatedAt = new Date().toISOString()
  const written: string[] = []
  const own: RunFile = {
    machine: run.machine,
    startedAt: run.startedAt.toISOString(),
    command: run.command,
    loadAverage: run.loadAverage,
    lines: [...run.fresh]
  }
  const ownFile = join(dir, runName(run.startedAt))
  await writeFile(ownFile, JSON.stringify(own, null, 2) + '\n')
  for (const name of ['latest.json', datedName(run.startedAt)]) {
    const file = join(dir, name)
    const merged = mergeResults(await readResults(file), run.fresh, run.ran, run.moduleOf, run.machine, updatedAt)
    await writeFile(file, JSON.stringify(merged, null, 2) + '\n')
    written.push(file)
  }
  written.push(ownFile)
  return written
}
