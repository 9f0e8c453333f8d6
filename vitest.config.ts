import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    // The route-codes reporter fails a full run in which a route's declared error code went unseen.
    reporters: ['default', './test/support/route-codes-reporter.ts'],
    // Handlers flush EMF metrics to stdout; tests assert on logs, not on metrics.
    env: { POWERTOOLS_METRICS_DISABLED: 'true' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
