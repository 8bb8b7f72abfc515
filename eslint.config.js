// @ts-check
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './scripts/lint/layers.js';

/** Every Node built-in module, from Node itself (`fs`, `timers`, `perf_hooks`…), without `node:`. */
const NODE_BUILTINS = builtinModules.filter((name) => !name.startsWith('_'));

/** Imports that only the Electron shell may make. */
const electronOnly = {
  name: 'electron',
  message: 'Only main/shell/ may import electron (ARCHITECTURE.md "Layers").',
};
const electronSubpaths = {
  group: ['electron/*'],
  message: 'Only main/shell/ may import electron (ARCHITECTURE.md "Layers").',
};
/** The core of main/ runs without Electron (the command line, the browser host): it never reaches into the shell. */
const shellFromCore = {
  group: ['**/shell/*', '**/shell'],
  message:
    'The core of main/ may not import main/shell/ (ARCHITECTURE.md "Layers"): the shell depends on the core, not the other way.',
};
/** Node's globals, which browser code (renderer/, shared/) must not use either. */
const nodeGlobals = ['process', 'Buffer', 'global', 'require', '__dirname', '__filename', 'setImmediate'].map(
  (name) => ({ name, message: 'renderer/ and shared/ run anywhere: no Node globals.' }),
);
/** Files that run in Node: the main process, preload, tests, benchmarks, scripts. */
const NODE_FILES = [
  'main/**',
  'preload/**',
  'simulator/**',
  'test/**',
  'bench/**',
  'scripts/**',
  'build/**',
  '*.js',
  '*.ts',
];
/** Modules that run in Node or Electron and must stay out of browser code. */
const nodeAndMainOnly = [
  electronOnly,
  ...NODE_BUILTINS.map((name) => ({
    name,
    message: 'renderer/ and shared/ run anywhere: no Node built-ins.',
  })),
  { name: 'undici', message: 'Only main/ calls the service.' },
  { name: 'keytar', message: 'Only main/ touches the keychain.' },
];

/** What browser code (renderer/, shared/) may not import: Node, Electron, main/ and the preload. */
const browserRestrictions = {
  paths: nodeAndMainOnly,
  patterns: [
    electronSubpaths,
    { group: ['node:*'], message: 'No Node built-ins here.' },
    {
      group: ['**/main/**', '**/preload/**'],
      message: 'Reach the app only through the preload bridge.',
    },
  ],
};
/**
 * Screens and components act through the store's actions (renderer/src/state/), which alone call
 * the bridge: a capability keeps one name from the button to main's handler (README "Layers").
 */
const bridgeFromViews = {
  group: ['**/bridge'],
  message: 'Screens and components call the store (actions.<area>.<verb>), never the bridge.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', 'node_modules/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: NODE_FILES, languageOptions: { globals: { ...globals.node } } },
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: 'error',
      'no-console': 'off',
    },
  },
  {
    // Layers inside main/ and shared/ (scripts/lint/layers.js holds the table).
    files: ['main/**/*.{ts,tsx,mts,cts}', 'shared/**/*.{ts,tsx,mts,cts}'],
    plugins: { layers: layersPlugin },
    rules: { 'layers/ordered': 'error' },
  },
  {
    files: ['main/**/*.{ts,tsx,mts,cts}'],
    ignores: ['main/shell/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [electronOnly], patterns: [electronSubpaths, shellFromCore] },
      ],
    },
  },
  {
    files: ['shared/**/*.{ts,tsx,mts,cts}', 'renderer/**/*.{ts,tsx,mts,cts}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-globals': ['error', ...nodeGlobals],
      'no-restricted-imports': ['error', browserRestrictions],
    },
  },
  {
    // Replaces the options above for these files, so it repeats them.
    files: ['renderer/src/screens/**', 'renderer/src/components/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { ...browserRestrictions, patterns: [...browserRestrictions.patterns, bridgeFromViews] },
      ],
    },
  },
  {
    // The simulator plays the real service: sharing code with the app would hide a shared mistake.
    files: ['simulator/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/main/**', '**/shared/**', '**/renderer/**', '**/preload/**', '**/test/**'],
              message: 'The simulator depends on nothing of the app (simulator/README.md).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['preload/**/*.{ts,tsx,mts,cts}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeAndMainOnly.filter((rule) => rule.name !== 'electron'),
          patterns: [
            { group: ['node:*'], message: 'The preload only uses contextBridge, ipcRenderer and webUtils.' },
            { group: ['**/main/**', '**/renderer/**'], message: 'The preload depends on shared/ only.' },
          ],
        },
      ],
    },
  },
);
