import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FUNCTION_BUNDLING } from '#infra/constructs/bundling';
import { bundleFunction } from '../../bench/bundle.ts';

/**
 * What goes into the key authorizer's bundle, built as a deployment builds it. Sizes and cold
 * starts are measured by `npm run bench`; this pins what must stay out of the hot path.
 */
describe('the key authorizer bundle', () => {
  it('holds the AWS SDK it needs and nothing of the default credential chain, middy, Powertools or zod', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'bundle-')), 'mcp-authorizer.mjs');
    const { metafile } = await bundleFunction(
      'mcp-authorizer',
      FUNCTION_BUNDLING['mcp-authorizer'] ?? {},
      out,
    );
    const inputs = Object.keys(metafile.inputs).join('\n');
    expect(inputs).toContain('@aws-sdk/client-dynamodb');
    expect(inputs).toContain('@aws-sdk/credential-provider-env');
    for (const absent of [
      '@aws-sdk/credential-provider-node',
      '@aws-sdk/credential-provider-sso',
      '@aws-sdk/credential-provider-ini',
      '@aws-sdk/nested-clients',
      'event-streams/',
      '@middy/',
      '@aws-lambda-powertools/',
      'node_modules/zod/',
    ]) {
      expect(inputs, absent).not.toContain(absent);
    }
  }, 60_000);
});

describe('the function table', () => {
  it('names every entry point in functions/, so each is bundled by one rule', () => {
    const entries = readdirSync('functions').map((f) => f.replace(/\.ts$/, ''));
    expect(Object.keys(FUNCTION_BUNDLING).sort()).toEqual(entries.sort());
  });
});
