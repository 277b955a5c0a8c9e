import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@svc/source'] },
  ssr: { resolve: { conditions: ['@svc/source'] } },
  test: {
    include: ['src/**/*.test.ts'],
    // One in-memory PGlite per worker, shared by the suites that worker runs (see @svc/store/testing).
    pool: 'forks',
    isolate: false,
    maxWorkers: 2,
    reporters: process.env.CI ? ['verbose'] : ['default'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
