import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { expect, it } from 'vitest';
import { ENTRY_POINTS, packageDir } from '../../packages/mcp-api-keys/build.ts';

/**
 * The verifier entry (`@svc/mcp-api-keys-verifier`) holds the verification, its DynamoDB reads and
 * the denial table, and nothing of key management (contract §16): its import graph, from esbuild's
 * metafile, holds only the modules below. A module joining it is a decision to take here, in review.
 */
const ALLOWED_SOURCES = [
  'lib/access/credential-kinds.ts',
  'lib/access/scopes.ts',
  'lib/access/tools.ts',
  'lib/credentials.ts',
  'lib/env.ts',
  'lib/errors.ts',
  'lib/index.ts',
  'lib/integrations/auth-info.ts',
  'lib/integrations/guard.ts',
  'lib/integrations/mcp-call.ts',
  'lib/integrations/node.ts',
  'lib/integrations/resource-metadata.ts',
  'lib/integrations/scopes.ts',
  'lib/keys/format.ts',
  'lib/keys/grammar.ts',
  'lib/keys/limiter.ts',
  'lib/keys/limits.ts',
  'lib/keys/lru.ts',
  'lib/keys/model.ts',
  'lib/keys/pepper-kms.ts',
  'lib/keys/pepper-local.ts',
  'lib/keys/pepper.ts',
  'lib/keys/rate-check.ts',
  'lib/keys/rules.ts',
  'lib/keys/tool-check.ts',
  'lib/keys/usage.ts',
  'lib/keys/verification.ts',
  'lib/keys/verifier-state.ts',
  'lib/keys/verify-cold.ts',
  'lib/keys/verify-warm.ts',
  'lib/keys/verify.ts',
  'lib/limits.ts',
  'lib/mcp/answer.ts',
  'lib/mcp/authorizer.ts',
  'lib/mcp/denial.ts',
  'lib/observability.ts',
  'lib/redact.ts',
  'lib/store/batch.ts',
  'lib/store/client.ts',
  'lib/store/conditions.ts',
  'lib/store/key-item.ts',
  'lib/store/key-reads.ts',
  'lib/store/membership-reads.ts',
  'lib/store/memberships-store.ts',
  'lib/store/sha256.ts',
  'lib/store/usage-items.ts',
  'lib/usage/model.ts',
  'lib/usage/recorder.ts',
  'lib/store/verification-reads.ts',
  'lib/verifier-dynamo.ts',
  'lib/verifier.ts',
];

/**
 * The AWS SDK clients it calls (and DynamoDB's attribute-value marshalling, the environment's
 * credentials), and nothing else (contract §16): `verifyMcpKey`'s environment is read without zod
 * (`lib/env.ts`).
 */
const ALLOWED_PACKAGES = [
  '@aws-sdk/client-dynamodb',
  '@aws-sdk/client-kms',
  '@aws-sdk/credential-provider-env',
  '@aws-sdk/lib-dynamodb',
  '@aws-sdk/util-dynamodb',
];

/** What management is made of: none of it may be reached, whatever else changes. */
const MANAGEMENT = [
  /^lib\/routes\//,
  /^lib\/http\//,
  /^lib\/handlers\//,
  /^lib\/workspaces\//,
  /^lib\/workspace-policy\//,
  /^lib\/events\//,
  /^lib\/leaks\//,
  /^lib\/api-docs\//,
  /^lib\/keys\/(lifecycle|admission|rotation|service|history|cursor)\.ts$/,
  /^lib\/store\/(keys-store|workspace-store|expiry-store|transactions|queries|items)\.ts$/,
  /^lib\/runtime\.ts$/,
  /^(infra|web|functions)\//,
];

it('bundles the verifier entry from the verification alone: no management module, no middy, no OpenAPI', async () => {
  const { metafile } = await build({
    entryPoints: [ENTRY_POINTS.verifier.source],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
  });
  const sources = Object.keys(metafile.inputs).sort();
  const packages = [
    ...new Set(
      Object.values(metafile.outputs)
        .flatMap((output) => output.imports)
        .filter((imp) => imp.external && !imp.path.startsWith('node:'))
        .map((imp) => imp.path),
    ),
  ].sort();
  expect(sources.filter((source) => MANAGEMENT.some((pattern) => pattern.test(source)))).toEqual([]);
  expect(packages.filter((p) => /middy|zod-to-openapi|openapi|aws-cdk|constructs|lit/.test(p))).toEqual([]);
  expect(sources.filter((source) => !ALLOWED_SOURCES.includes(source))).toEqual([]);
  expect(packages.filter((p) => !ALLOWED_PACKAGES.includes(p))).toEqual([]);
  // The check sees the graph: the verification and its reads are in it.
  expect(sources).toEqual(
    expect.arrayContaining([
      'lib/verifier.ts',
      'lib/keys/verify.ts',
      'lib/store/key-reads.ts',
      'lib/usage/recorder.ts',
    ]),
  );
});

it('depends on the AWS SDK clients only: its dependencies, and its MCP SDK entry on the optional peer alone', async () => {
  const manifest = JSON.parse(readFileSync(join(packageDir('verifier'), 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
  };
  expect(Object.keys(manifest.dependencies).sort()).toEqual(ALLOWED_PACKAGES);
  expect(Object.keys(manifest.peerDependencies)).toEqual(['@modelcontextprotocol/sdk']);
  const { metafile } = await build({
    entryPoints: [ENTRY_POINTS['verifier-mcp-sdk'].source],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
  });
  const packages = Object.values(metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((imp) => imp.external && !imp.path.startsWith('node:'))
    .map((imp) => imp.path);
  expect(packages.length).toBeGreaterThan(0);
  expect(packages.filter((p) => !p.startsWith('@modelcontextprotocol/sdk/'))).toEqual([]);
});

it('exports every type a caller can touch: the verifier API report names no forgotten export', () => {
  const report = readFileSync(join(packageDir('verifier'), 'api/verifier.api.md'), 'utf8');
  expect(report).toContain('export function createMcpKeyVerifier(');
  expect(report).not.toContain('ae-forgotten-export');
});
