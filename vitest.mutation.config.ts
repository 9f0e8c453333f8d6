import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config.ts';

/**
 * Unit test files before the DynamoDB Local ones. StrykerJS stops a mutant's run at its first
 * failing test, so a mutant the fast suite notices never waits for the slow one.
 */
class UnitTestsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => (file.moduleId.includes('/test/unit/') ? 0 : 1);
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/** The suites mutation testing runs: the unit tests and the DynamoDB Local integration tests. */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // One project of its own: the tiers of vitest.config.ts are replaced by these two folders.
    projects: undefined,
    globalSetup: ['test/support/global-setup.ts'],
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    sequence: { sequencer: UnitTestsFirst },
  },
});
