import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { FUNCTION_BUNDLING, type FunctionName } from '#infra/constructs/bundling';
import { ServiceFunction } from '#infra/constructs/service-function';
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

/** A bundle's source map, its sources as absolute paths (each map names them relative to itself). */
function sourceMapOf(dir: string) {
  const map = JSON.parse(readFileSync(join(dir, 'index.mjs.map'), 'utf8')) as { sources: string[] };
  return { ...map, sources: map.sources.map((source) => resolve(dir, source)) };
}

describe('a synth from the repository', () => {
  it('bundles a function into the same bytes as the published package’s prebuilt bundle', async () => {
    // The artifact suite runs the prebuilt bundles (test/artifact/bundles.test.ts): a deployment
    // from the repository, bundled by the synth (NodejsFunction, esbuild's CLI and the source map
    // hook), must ship exactly those. One function that bundles the AWS SDK, one that does not.
    const work = mkdtempSync(join(tmpdir(), 'bundle-synth-'));
    const app = new App({
      outdir: join(work, 'cdk.out'),
      context: { 'aws:cdk:enable-asset-metadata': true },
    });
    const stack = new Stack(app, 'Bundled');
    const entries: FunctionName[] = ['mcp-authorizer', 'mcp-server'];
    for (const entry of entries) new ServiceFunction(stack, entry, { entry });
    const assembly = app.synth();
    const template = assembly.getStackByName('Bundled').template as {
      Resources: Record<string, { Type: string; Metadata?: Record<string, string> }>;
    };
    const staged = Object.entries(template.Resources)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
      .map(([id, r]) => ({ id, path: join(assembly.directory, r.Metadata?.['aws:asset:path'] ?? '') }));
    expect(staged).toHaveLength(entries.length);
    for (const entry of entries) {
      const synthesized = staged.find(({ id }) => id.startsWith(entry.replace(/-/g, '')));
      expect(synthesized, entry).toBeDefined();
      const out = join(work, entry, 'index.mjs');
      await bundleFunction(entry, FUNCTION_BUNDLING[entry], out);
      const dir = synthesized?.path ?? '';
      expect(readFileSync(join(dir, 'index.mjs')).equals(readFileSync(out)), entry).toBe(true);
      expect(sourceMapOf(dir), entry).toEqual(sourceMapOf(join(work, entry)));
    }
  }, 120_000);
});
