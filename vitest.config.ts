import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { useRunTmp } from './test/support/run-tmp.ts';

/**
 * The test tiers, by what each needs. `npm test` runs them all in one run; `npm run test:<tier>`
 * runs one alone (docs/contributing.md says which to run when).
 *
 * - unit: pure code, no process spawned, no socket, no DynamoDB.
 * - docs: the docs pages and the OpenAPI document, linted by Redocly's and Spectral's CLIs.
 * - integration: DynamoDB Local (one JVM for the whole run) and loopback servers.
 * - e2e: `npm start`'s entry point over real HTTP, real MCP clients.
 * - browser: the elements and pages in Debian's Chromium.
 * - infra: the CDK app synthesized, the bundles in cdk.out invoked as Lambda invokes them.
 * - package: the packed tarballs installed into consumer projects.
 * - clients (opt-in, CLIENTS=1): the CLIs that sign in with OAuth, installed from the registry.
 *
 * Every tier but docs and package shares its workers' module cache (`isolate: false`; the unit
 * tier then takes 10 s of CPU where it took 26 s, the integration tier 185 s where 207 s, the e2e
 * and browser tiers half their import time, the infra tier 202 s where 277 s: aws-cdk-lib and the
 * app's constructs load once a worker, not once a file), so a file there restores whatever it
 * changes (environment stubs, spies, an SDK client mock's `restore()`, `process.stdout`) before it
 * ends, and a file that needs the service's modules imported under settings of its own imports them
 * afresh (`vi.resetModules()`, as test/integration/event-logging.test.ts and the artifact suite
 * do).
 *
 * Expensive set-up is shared: one DynamoDB Local per run for every tier that needs it
 * (test/support/global-setup.ts), which the local services the e2e, browser and package tiers
 * start use too (`DYNAMODB_LOCAL_URL`, a database of their own each), one synth per settings
 * variant for the infra tier (test/support/synth-setup.ts), and for the package tier one build
 * and `npm pack` of the packages, with every consumer project installed from the tarballs and
 * type-checked (test/support/pack-setup.ts); the synth and the packing run in the background
 * while the other tiers run.
 */
const DYNAMODB_LOCAL = 'test/support/global-setup.ts';
const SYNTH = 'test/support/synth-setup.ts';
const PACK = 'test/support/pack-setup.ts';

/**
 * A run's temporary files (the local services' data directories, the consumer projects,
 * Chromium's profiles, the pepper files), in one directory of its own that goes when the run
 * exits: `TMPDIR` is inherited by the workers and everything they start. Vitest loads this file
 * more than once (for the root and again for its projects): the first load makes the directory
 * (`SVC_TEST_RUN_TMP`) and removes it at exit, the others keep it. A run killed with SIGKILL
 * leaves its directory and its processes behind, for the next run to remove
 * (test/support/run-tmp.ts).
 */
useRunTmp();

/**
 * A tier and the group it runs in (`groupOrder`): Vitest runs the groups one after another, lowest
 * first, and the tiers of a group together. Run all at once, the tiers' files and the processes
 * they start (local services, Chromium, the consumers' type-checks) asked for four or five cores
 * of the two: 620 s with 950 s of CPU; one group at a time, two files at a time, the same files
 * took 275-281 s with some 440 s of CPU (docs/contributing.md). The browser tier goes first; the
 * unit, docs and integration tiers next; then e2e; the infra and package tiers last, so that the
 * background synth and packing (niced: test/support/background.ts) are done by then.
 */
function tier(
  name: string,
  groupOrder: number,
  include: string[],
  test: TestProjectInlineConfiguration['test'] = {},
) {
  return {
    extends: true,
    test: { name, include, sequence: { groupOrder }, ...test },
  } satisfies TestProjectInlineConfiguration;
}

export default defineConfig({
  test: {
    // The route-codes reporter fails a full run in which a route's declared error code went unseen.
    reporters: ['default', './test/support/route-codes-reporter.ts'],
    // Handlers flush EMF metrics to stdout; tests assert on logs, not on metrics.
    env: { POWERTOOLS_METRICS_DISABLED: 'true' },
    // Sized for a busy 2-core machine (another test run beside this one), not an idle one.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // `expect.poll` waits for what another process shows (a page after an API call): 1 s, its
    // default, is too short beside another test run.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // Two files at a time: the processes they start (DynamoDB Local's JVM, the local services,
    // Chromium) keep both cores busy already. Three took more CPU for no shorter run
    // (docs/contributing.md).
    maxWorkers: 2,
    projects: [
      tier('unit', 1, ['test/unit/**/*.test.ts'], { isolate: false }),
      tier('docs', 1, ['test/docs/**/*.test.ts']),
      tier('integration', 1, ['test/integration/**/*.test.ts', 'test/reliability/**/*.test.ts'], {
        globalSetup: [DYNAMODB_LOCAL],
        isolate: false,
      }),
      tier('e2e', 2, ['test/e2e/**/*.test.ts'], { globalSetup: [DYNAMODB_LOCAL], isolate: false }),
      tier('browser', 0, ['test/browser/**/*.test.ts'], { globalSetup: [DYNAMODB_LOCAL], isolate: false }),
      tier('infra', 3, ['test/infra/**/*.test.ts', 'test/artifact/**/*.test.ts'], {
        globalSetup: [DYNAMODB_LOCAL, SYNTH],
        isolate: false,
      }),
      tier('package', 4, ['test/package/**/*.test.ts'], { globalSetup: [PACK, DYNAMODB_LOCAL] }),
      // Opt-in (`npm run test:clients`): installs large CLIs from the npm registry.
      ...(process.env.CLIENTS === '1'
        ? [tier('clients', 5, ['test/clients/**/*.test.ts'], { globalSetup: [DYNAMODB_LOCAL] })]
        : []),
    ],
  },
});
