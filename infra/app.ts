import { Errors } from 'aws-cdk-lib';
import { buildApp } from './build-app.ts';

// Bound to the account and region of the credentials the CDK CLI runs with (`--profile`,
// `AWS_PROFILE`, `AWS_REGION`; docs/deploying.md), rather than deployable anywhere unresolved.
const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };

// The CDK writes a progress line per bundled function: under `cdk synth --quiet` (what `npm run
// synth` runs) only findings and errors are wanted. `SYNTH_VERBOSE=1` keeps them.
if (!process.env.SYNTH_VERBOSE) {
  const write = process.stderr.write.bind(process.stderr) as (chunk: unknown, ...rest: unknown[]) => boolean;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === 'string' && chunk.startsWith('Bundling asset ')
      ? true
      : write(chunk, ...rest)) as typeof process.stderr.write;
}

try {
  buildApp({ env });
} catch (err) {
  // A bad setting already says everything in its lines: print them, not a stack trace.
  if (!Errors.isValidationError(err) || !err.message.startsWith('invalid deployment settings:')) throw err;
  process.stderr.write(`${err.message}\n`);
  process.exitCode = 1;
}
