import { defineConfig } from 'vitest/config';

/**
 * `npm run test:unit`: the suites that need neither Java (DynamoDB Local) nor Chromium, so no
 * global setup. `npm test` runs these too, with everything else (vitest.config.ts).
 */
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/docs/**/*.test.ts'],
    env: { POWERTOOLS_METRICS_DISABLED: 'true' },
    pool: 'forks',
  },
});
