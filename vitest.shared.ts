import { defineConfig } from 'vitest/config';

/**
 * The test configuration every package shares. Suites that use the database share one in-memory PGlite per
 * worker (see @svc/store/testing), which needs isolate: false.
 */
export function svcTestConfig(options: { database: boolean }) {
  return defineConfig({
    resolve: { conditions: ['@svc/source'] },
    ssr: { resolve: { conditions: ['@svc/source'] } },
    test: {
      include: ['src/**/*.test.ts'],
      reporters: process.env.CI ? ['verbose'] : ['default'],
      // Property tests and real processes take seconds on a loaded 2-core machine.
      testTimeout: 60_000,
      hookTimeout: 60_000,
      ...(options.database ? { pool: 'forks', isolate: false, maxWorkers: 2 } : {}),
    },
  });
}
