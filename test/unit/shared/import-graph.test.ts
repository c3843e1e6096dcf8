// src/shared has no circle of imports between its files: each file can be read knowing only
// the files below it (the lint's floors keep api, ipc and domain in order; this holds the
// files within a folder too).
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(__dirname, '../../../src/shared')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : []
  })
}

/** The files of src/shared a file imports (type-only imports included: they tie the files as much). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const out: string[] = []
  for (const [, spec] of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']*)'/g)) {
    const base = resolve(dirname(file), spec!)
    const hit = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p))
    if (hit && hit.startsWith(ROOT)) out.push(hit)
  }
  return out
}

/** Every circle of imports, each as the files around it. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (f: string) => {
    state.set(f, 'open')
    path.push(f)
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') found.push([...path.slice(path.indexOf(g)), g])
      else if (!state.has(g)) visit(g)
    }
    path.pop()
    state.set(f, 'done')
  }
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f)
  return found
}

describe('src/shared: imports', () => {
  it('form no circle', () => {
    const graph = new Map(sources(ROOT).map((f) => [f, importsOf(f)]))
    expect(graph.size).toBeGreaterThan(40)
    expect(circles(graph).map((c) => c.map((f) => relative(ROOT, f)).join(' -> '))).toEqual([])
  })
})
