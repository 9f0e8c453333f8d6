import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/** The suites mutation testing runs: the unit tests and the DynamoDB Local integration tests. */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'] },
});
