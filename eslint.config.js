// Lint: TypeScript and Svelte, plus the architecture rules of docs/architecture.md:
// - only src/main/electron and src/preload may import 'electron';
// - src/shared imports no Node module and touches no DOM global;
// - raw ipcMain / ipcRenderer only in the two IPC wrapper files;
// - src/sandbox imports nothing of the client (src/main, src/shared/api): it is an
//   independent reading of the spec, so a misreading in the client is not shared;
// - the team hub (src/hub) and the browser harness (src/web) import nothing of each other:
//   the hub is a production server, the harness a development one, and what both need
//   lives below them (src/main, src/shared).
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import svelte from 'eslint-plugin-svelte'
import globals from 'globals'
import { builtinModules } from 'node:module'

const IPC_WRAPPERS = ['src/main/electron/ipc.ts', 'src/preload/index.ts']
const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)]
const domGlobals = ['window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'location', 'HTMLElement', 'customElements']

const noElectron = { name: 'electron', message: "Only src/main/electron and src/preload may import 'electron'." }

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
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron, ...nodeBuiltins.map((name) => ({ name, message: 'src/shared is pure TypeScript: no Node modules.' }))],
          patterns: [
            { group: ['node:*'], message: 'src/shared is pure TypeScript: no Node modules.' },
            {
              group: ['**/main/**', '**/renderer/**', '**/preload/**', '**/sandbox/**', '**/web/**'],
              message: 'src/shared imports nothing outside src/shared.'
            }
          ]
        }
      ],
      'no-restricted-globals': [
        'error',
        ...domGlobals.map((name) => ({ name, message: 'src/shared must not use DOM-only globals.' })),
        { name: 'process', message: 'src/shared must not use Node globals.' },
        { name: 'Buffer', message: 'src/shared must not use Node globals.' }
      ]
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
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            {
              group: ['**/web', '**/web/**'],
              message: 'src/hub imports nothing of the browser harness (src/web): what both need lives in src/main or src/shared.'
            }
          ]
        }
      ]
    }
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
  }
)
