import { defineConfig } from 'vitest/config';

// Two projects so `npm test` runs the fast pure tests first (house style §7). Integration tests run in
// forked processes because the Temporal SDK's native runtime and embedded PostgreSQL do not belong in
// worker threads.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          globalSetup: ['test/helpers/compiled-cli-setup.ts', 'test/helpers/postgres-global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
    ],
  },
});
