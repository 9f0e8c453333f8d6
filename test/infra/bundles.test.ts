import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FUNCTION_BUNDLING } from '#infra/constructs/bundling';
import { bundleFunction } from '../../infra/constructs/esbuild-bundle.ts';

/**
 * What goes into the key authorizer's bundle, built as a deployment builds it. Sizes and cold
 * starts are measured by `npm run bench`; this pins what must stay out of the hot path.
 */
describe('the key authorizer bundle', () => {
  it('holds the AWS SDK it needs, zod only in its small form, and nothing of the default credential chain, middy or Powertools', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'bundle-')), 'mcp-authorizer.mjs');
    const { metafile } = await bundleFunction(
      'mcp-authorizer',
      FUNCTION_BUNDLING['mcp-authorizer'] ?? {},
      out,
    );
    // What the bundle holds: each input with bytes in the output (tree-shaken modules hold none).
    const inputs = Object.values(metafile.outputs)
      .flatMap((o) => Object.entries(o.inputs).filter(([, i]) => i.bytesInOutput > 0))
      .map(([path]) => path)
      .join('\n');
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
      'node_modules/zod/v4/classic/',
      'node_modules/zod/v4/locales/',
    ]) {
      expect(inputs, absent).not.toContain(absent);
    }
    // The configuration's rules (lib/config-rules.ts) are zod's small form, shared with the CDK settings.
    expect(inputs).toContain('node_modules/zod/v4/mini/');
  }, 60_000);
});

describe('the function table', () => {
  it('names every entry point in functions/, so each is bundled by one rule', () => {
    const entries = readdirSync('functions').map((f) => f.replace(/\.ts$/, ''));
    expect(Object.keys(FUNCTION_BUNDLING).sort()).toEqual(entries.sort());
  });
});
