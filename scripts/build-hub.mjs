#!/usr/bin/env node
// npm run build:hub: the team hub as one ES module, dist/hub/cli.js, that runs with node and
// the production dependencies only (no tsx, no devDependencies, no Electron):
//   node dist/hub/cli.js serve …   (beside a node_modules from `npm ci --omit=dev`)
// `--out DIR` builds into DIR instead (npm test builds the hub its tests start there; DIR must
// be inside the checkout, where the packages resolve from its node_modules).
// Our TypeScript is bundled by esbuild; every package stays an import, resolved at run time
// from node_modules (libsql is native; the rest are what package.json's dependencies pin).
// The build fails when the bundle imports a package that is not a production dependency,
// so a devDependency pulled into the hub's graph is found here rather than on a server.
import { build } from 'esbuild'
import { builtinModules } from 'node:module'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const outAt = process.argv.indexOf('--out')
const out = outAt > 0 && process.argv[outAt + 1] ? resolve(process.argv[outAt + 1]) : join(root, 'dist', 'hub')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const production = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})])
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]))

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/hub/cli.ts'],
  outfile: join(out, 'cli.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  packages: 'external',
  sourcemap: 'linked',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning'
})

/** 'pino' of 'pino', '@noble/hashes' of '@noble/hashes/sha2.js'. */
const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/')
const used = new Set()
const foreign = []
for (const output of Object.values(result.metafile.outputs))
  for (const imp of output.imports) {
    if (!imp.external || builtins.has(imp.path)) continue
    const name = packageOf(imp.path)
    if (production.has(name)) used.add(name)
    else foreign.push(imp.path)
  }
if (foreign.length) {
  console.error(`build:hub: the hub imports packages that are not production dependencies: ${[...new Set(foreign)].join(', ')}`)
  process.exit(1)
}

// "type": "module" for cli.js, and the packages it imports at the versions built with.
const manifest = {
  name: 'rampdesk-hub',
  version: pkg.version,
  private: true,
  type: 'module',
  description: 'The Rampdesk team hub, built: node cli.js serve …',
  engines: pkg.engines,
  // The versions this build was made and tested with (package-lock.json pins the rest).
  dependencies: Object.fromEntries(
    [...used].sort().map((d) => [d, JSON.parse(readFileSync(join(root, 'node_modules', d, 'package.json'), 'utf8')).version])
  )
}
writeFileSync(join(out, 'package.json'), JSON.stringify(manifest, null, 2) + '\n')
const bytes = result.metafile.outputs[Object.keys(result.metafile.outputs).find((f) => f.endsWith('cli.js'))].bytes
console.log(`built ${relative(root, join(out, 'cli.js'))} (${Math.round(bytes / 1024)} KiB); it imports ${[...used].sort().join(', ')}`)
