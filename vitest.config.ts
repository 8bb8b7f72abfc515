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
  },
});
