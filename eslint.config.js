// Lint: TypeScript and Svelte, plus the architecture rules of docs/architecture.md:
// - only src/main/electron and src/preload may import 'electron';
// - src/shared imports no Node module and touches no DOM global;
// - raw ipcMain / ipcRenderer only in the two IPC wrapper files;
// - src/sandbox imports nothing of the client (src/main, src/shared/api): it is an
//   independent reading of the spec, so a misreading in the client is not shared;
// - the inner floors of src/main: src/main/api rests on src/shared alone; src/main/store on
//   src/shared, src/main/api and src/main/logging; inside the store only local-store.ts
//   opens the database (database.ts runs the migrations, which rest on sql.ts);
//   src/main/webhooks on those and abort.ts (it hands verified orders to an interface the
//   monitor implements); src/main/monitor on those, src/main/webhooks and order-rows.ts.
// - the team hub (src/hub) and the browser harness (src/web) import nothing of each other:
//   the hub is a production server, the harness a development one, and what both need
//   lives below them (src/main, src/shared).
// - inside src/hub, what is one store's own (src/hub/pg, sqlite-backend.ts,
//   sqlite-hub-store.ts) is imported only by the backends and the files that pick a store,
//   so the rest of the hub runs the same code on either (pg/pg-connection.ts, the
//   database's address, is the command line's too).
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import svelte from 'eslint-plugin-svelte'
import globals from 'globals'
import { builtinModules } from 'node:module'

const IPC_WRAPPERS = ['src/main/electron/ipc.ts', 'src/preload/index.ts']
const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)]
const domGlobals = ['window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'location', 'HTMLElement', 'customElements']

const noElectron = { name: 'electron', message: "Only src/main/electron and src/preload may import 'electron'." }

/** src/shared's import rule: no electron, no Node module, nothing outside src/shared, and what a floor adds. */
function sharedImports(floorPatterns = [], floorPaths = []) {
  return [
    'error',
    {
      paths: [
        noElectron,
        ...nodeBuiltins.map((name) => ({ name, message: 'src/shared is pure TypeScript: no Node modules.' })),
        ...floorPaths
      ],
      patterns: [
        { group: ['node:*'], message: 'src/shared is pure TypeScript: no Node modules.' },
        {
          group: ['**/main/**', '**/renderer/**', '**/preload/**', '**/sandbox/**', '**/web/**'],
          message: 'src/shared imports nothing outside src/shared.'
        },
        ...floorPatterns
      ]
    }
  ]
}

/** The folders of src/shared above a floor, as its files' imports name them (`up` leads to src/shared). */
function below(up, higher, why) {
  return [{ group: higher.flatMap((f) => [`${up}${f}`, `${up}${f}/**`]), message: `${why}: it imports nothing of ${higher.join(', ')}.` }]
}

/**
 * Imports from a folder of src/main into another one than itself and `allowed`, as its
 * files write them: '../x', or out to src and back into main.
 */
const mainFloor = (folder, allowed, message) => {
  const ok = [folder, ...allowed].join('|')
  return [
    { regex: `^\\.\\./(?!\\.\\./|(${ok})(/|$))`, message },
    { regex: `^(\\.\\./)+(src/)?main(/(?!(${ok})(/|$))|$)`, message }
  ]
}
const apiFloor = mainFloor(
  'api',
  [],
  'src/main/api rests on src/shared alone: a floor above hands it what it needs through an interface it declares.'
)
const storeFloor = mainFloor(
  'store',
  ['api', 'logging'],
  'src/main/store rests on src/shared, src/main/api and src/main/logging: a floor above hands it what it needs through an interface it declares.'
)
const webhooksFloor = mainFloor(
  'webhooks',
  ['api', 'store', 'logging', 'abort'],
  'src/main/webhooks rests on src/shared, src/main/api, src/main/store, src/main/logging and abort.ts: the monitor implements the interface it hands verified orders to (verified-orders.ts).'
)
const monitorFloor = mainFloor(
  'monitor',
  ['api', 'store', 'logging', 'abort', 'webhooks', 'order-rows'],
  'src/main/monitor rests on src/shared, src/main/api, src/main/store, src/main/logging, src/main/webhooks, abort.ts and order-rows.ts: a floor above hands it what it needs through an interface it declares.'
)
const storeOpener = {
  regex: '^\\./database$',
  message:
    'Inside src/main/store only local-store.ts opens the database (database.ts migrates it): the schema and the repositories rest on sql.ts.'
}
const hubNoWeb = {
  group: ['**/web', '**/web/**'],
  message: 'src/hub imports nothing of the browser harness (src/web): what both need lives in src/main or src/shared.'
}
// The files that pick the hub's store: the running hub's (hub-open.ts) and the command line's.
const HUB_STORE_PICKERS = ['src/hub/hub-open.ts', 'src/hub/commands.ts', 'src/hub/command-store.ts', 'src/hub/backup-command.ts']
const ownStoreMessage =
  "src/hub reaches a store's own code through the backend (hub-backend.ts): only that store's backend and the files that pick a store (hub-open.ts, the commands) import src/hub/pg, sqlite-backend or sqlite-hub-store."
const pgOwn = { group: ['**/pg/*', '!**/pg/pg-connection'], message: ownStoreMessage }
const sqliteOwn = { group: ['**/sqlite-backend', '**/sqlite-hub-store'], message: ownStoreMessage }

export default tseslint.config(
  {
    ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'bench/results/**', '.vite/**']
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', { paths: [noElectron] }]
    }
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] }
    }
  },
  {
    files: ['src/renderer/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } }
  },
  {
    files: ['src/main/electron/**/*.ts', 'src/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'electron',
              importNames: ['ipcMain', 'ipcRenderer'],
              message: 'Raw ipcMain/ipcRenderer live only in src/main/electron/ipc.ts and src/preload/index.ts.'
            }
          ]
        }
      ]
    }
  },
  {
    files: IPC_WRAPPERS,
    rules: { 'no-restricted-imports': 'off' }
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': sharedImports(),
      'no-restricted-globals': [
        'error',
        ...domGlobals.map((name) => ({ name, message: 'src/shared must not use DOM-only globals.' })),
        { name: 'process', message: 'src/shared must not use Node globals.' },
        { name: 'Buffer', message: 'src/shared must not use Node globals.' }
      ]
    }
  },
  // The floors of src/shared, lowest first: its own files (money, http-url, csp, loopback),
  // api (the merchant API's reading), ipc (the contract, which reads some shapes from api),
  // domain (statuses, names, quotes, CSV: on all of them). A floor imports only those below.
  {
    files: ['src/shared/*.ts'],
    rules: { 'no-restricted-imports': sharedImports(below('./', ['api', 'ipc', 'domain'], "src/shared's own files are its floor")) }
  },
  {
    files: ['src/shared/api/**/*.ts'],
    rules: {
      'no-restricted-imports': sharedImports(below('../', ['ipc', 'domain'], "src/shared/api builds on src/shared's own files only"))
    }
  },
  {
    files: ['src/shared/ipc/**/*.ts'],
    rules: {
      'no-restricted-imports': sharedImports(
        below('../', ['domain'], "the contract (src/shared/ipc) builds on src/shared/api and src/shared's own files")
      )
    }
  },
  {
    // The contract's index puts the namespaces together: a namespace's file that imported it would close a circle.
    files: ['src/shared/ipc/contract/*.ts'],
    ignores: ['src/shared/ipc/contract/index.ts'],
    rules: {
      'no-restricted-imports': sharedImports(
        below('../../', ['domain'], "the contract (src/shared/ipc) builds on src/shared/api and src/shared's own files"),
        ['.', './', './index', '../contract', '../contract/index'].map((name) => ({
          name,
          message: "A namespace's file imports the files it builds on, never the contract's index."
        }))
      )
    }
  },
  {
    files: ['src/sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            {
              group: ['**/main', '**/main/**', '**/shared/api', '**/shared/api/**'],
              message: "src/sandbox is an independent reading of the spec: it imports nothing of the client's (src/main, src/shared/api)."
            }
          ]
        }
      ]
    }
  },
  {
    files: ['src/hub/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: [hubNoWeb, pgOwn, sqliteOwn] }] }
  },
  {
    files: ['src/hub/pg/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: [hubNoWeb, sqliteOwn] }] }
  },
  {
    files: ['src/hub/sqlite-backend.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: [hubNoWeb, pgOwn] }] }
  },
  {
    files: HUB_STORE_PICKERS,
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: [hubNoWeb] }] }
  },
  {
    files: ['src/web/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            {
              group: ['**/hub', '**/hub/**'],
              message: 'src/web imports nothing of the team hub (src/hub): what both need lives in src/main or src/shared.'
            }
          ]
        }
      ]
    }
  },
  {
    files: ['src/renderer/**/*'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            {
              group: ['**/main/**', '**/sandbox/**', '**/web/**', '**/preload/**'],
              message: 'The renderer talks to main only through window.rampdesk (the IPC contract).'
            }
          ]
        }
      ]
    }
  },
  {
    files: ['src/main/api/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: apiFloor }] }
  },
  {
    files: ['src/main/store/**/*.ts'],
    ignores: ['src/main/store/local-store.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: [...storeFloor, storeOpener] }] }
  },
  {
    files: ['src/main/store/local-store.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: storeFloor }] }
  },
  {
    files: ['src/main/webhooks/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: webhooksFloor }] }
  },
  {
    files: ['src/main/monitor/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: monitorFloor }] }
  }
)
