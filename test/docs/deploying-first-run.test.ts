import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

/**
 * What docs/deploying.md promises of the first synth: a bad setting stops the app with one line per
 * problem and no stack trace. The app is run as the CDK CLI runs it (`npx tsx infra/app.ts`, the
 * context in `CDK_CONTEXT_JSON`); it stops before bundling anything.
 */
it('stops the CDK app on bad settings with one line per problem, and no stack trace', async () => {
  const ran = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
    env: {
      ...process.env,
      CDK_OUTDIR: '.tmp/cdk-bad-settings',
      CDK_CONTEXT_JSON: JSON.stringify({ jwtIssuer: 'http://login.example.com', maxExpiryDays: '0' }),
    },
  }).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code: number; stderr: string }) => err,
  );
  expect(ran.code).toBe(1);
  expect(ran.stderr.trim().split('\n')).toEqual([
    'invalid deployment settings:',
    '- jwtIssuer: must be an https URL',
    '- jwtAudience: is required (a comma-separated list of audiences)',
    expect.stringMatching(/^- maxExpiryDays: /),
  ]);
}, 60_000);
