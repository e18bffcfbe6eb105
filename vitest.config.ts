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
          // Files share a worker's modules: Temporal, Baileys, ECharts and DuckDB are imported once per worker, not
          // once per file (which would be most of the project's CPU time). Two workers, one per core (vitest's
          // default is cores - 1). A unit test leaves no state behind; one that mocks a module evaluates its
          // subject again (vi.resetModules, as cli/local-stack/preflight.test.ts does).
          pool: 'forks',
          isolate: false,
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          globalSetup: ['test/helpers/compiled-cli-setup.ts', 'test/helpers/integration-global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: true,
          // Three files at a time on two cores: an integration file spends much of its time waiting on servers,
          // child processes and timers, so a third keeps both cores busy (quiet 2-core box: 493 s with two, 385 s
          // with three).
          maxWorkers: 3,
          // Files share a worker's modules, as in the unit project: a fresh fork per file would import the Temporal
          // SDK, Fastify, pg and most of the lake again (about a second of CPU per file). Every file closes what
          // it starts; the Temporal Runtime is per process by design (installRuntimeLoggerOnce).
          isolate: false,
        },
      },
    ],
  },
});
