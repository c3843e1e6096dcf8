// The results files `npm run bench` writes: bench/results/latest.json and a dated copy,
// bench/results/YYYY-MM-DD.json, each the lines of this run merged over the file's
// previous lines, so a subset run replaces only its own benches. The dated copy holds
// only lines measured on that day (UTC): a figure quoted in the docs names the file it
// came from, and the file is committed with the docs that quote it.
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

/** Merges this run into latest.json and the dated copy; returns the paths written. */
export async function writeResults(
  dir: string,
  run: {
    fresh: readonly ResultLine[]
    ran: ReadonlySet<string>
    moduleOf: (lineName: string) => string
    machine: MachineInfo
    startedAt: Date
  }
): Promise<string[]> {
  await mkdir(dir, { recursive: true })
  const updatedAt = new Date().toISOString()
  const written: string[] = []
  for (const name of ['latest.json', datedName(run.startedAt)]) {
    const file = join(dir, name)
    const merged = mergeResults(await readResults(file), run.fresh, run.ran, run.moduleOf, run.machine, updatedAt)
    await writeFile(file, JSON.stringify(merged, null, 2) + '\n')
    written.push(file)
  }
  return written
}
