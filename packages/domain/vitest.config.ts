import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@svc/source'] },
  ssr: { resolve: { conditions: ['@svc/source'] } },
  test: {
    include: ['src/**/*.test.ts'],
    reporters: process.env.CI ? ['verbose'] : ['default'],
  },
});
