import { defineConfig } from 'vitest/config';

export default defineConfig({
  // As in `npm start`'s build: development hosts may offer the built-in simulator.
  define: { DESK_DEVELOPMENT_BUILD: 'true' },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Many suites mostly wait (5 s read spacing, Retry-After, kills and restarts): more files at
    // once than the 2 cores of the build machine keep the whole run short.
    maxWorkers: 4,
  },
});
