import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { packed } from '#test/support/packed';
import { runCommand as run } from '#test/support/run-command';
import { soakOnly } from '#test/support/soak';
import { packageDir } from '../../packages/mcp-api-keys/build.ts';

/**
 * A platform team's CDK apps, outside this repository (under the OS temp directory), installing
 * only the `npm pack` tarball of `@svc/mcp-api-keys-cdk` (contract §16), with aws-cdk-lib,
 * constructs and cdk-nag linked from this repository (`CONSUMERS.cdk` in test/support/packed.ts).
 * The project is installed, and type-checked, in the background from the run's start
 * (test/support/pack-setup.ts); this file waits for it. Its tests run side by side: each synth
 * writes a cloud assembly of its own.
 */
const started = Date.now();

let work: string;
let ready: Awaited<ReturnType<typeof packed>>;
const projects = { cdk: '' };

const _exec = promisify(execFile);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'svc-cdk-consumer-'));
  ready = await packed();
  projects.cdk = (await ready.installed()).consumer('cdk');
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  console.log(`CDK consumer tests: ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
});

/** The Lambda functions and their code assets in a synthesized stack's template. */
function functionsOf(templatePath: string) {
  const template = JSON.parse(readFileSync(templatePath, 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
  };
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id, r]) => ({ id, ...(r.Properties as Record<string, unknown>) }));
}

describe.concurrent('a platform team’s CDK app, from the tarball', () => {
  it('type-checks against the shipped declarations', async ({ expect }) => {
    const result = await ready.typecheck('cdk');
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);

  it('attaches McpKeyAuthorizer to its own REST API and HTTP API, cdk-nag clean', async ({ expect }) => {
    const out = join(work, 'cdk-authorizer.out');
    const synth = await run(projects.cdk, process.execPath, ['authorizer-app.ts'], { CDK_OUTDIR: out });
    expect(synth.output).not.toContain('ERROR');
    expect(synth.code).toBe(0);
    const template = readFileSync(join(out, 'TeamMcp.template.json'), 'utf8');
    const resources = Object.values(
      (JSON.parse(template) as { Resources: Record<string, { Type: string; Properties: never }> }).Resources,
    );
    const ofType = (type: string) => resources.filter((r) => r.Type === type).map((r) => r.Properties);
    expect(ofType('AWS::ApiGateway::Authorizer')).toEqual([
      expect.objectContaining({
        Type: 'REQUEST',
        AuthorizerResultTtlInSeconds: 0,
        IdentitySource: 'method.request.header.Authorization',
      }),
    ]);
    expect(ofType('AWS::ApiGatewayV2::Authorizer')).toEqual([
      expect.objectContaining({
        AuthorizerType: 'REQUEST',
        EnableSimpleResponses: true,
        AuthorizerResultTtlInSeconds: 0,
      }),
    ]);
    expect(
      ofType('AWS::ApiGateway::GatewayResponse')
        .map((r: { ResponseType: string }) => r.ResponseType)
        .sort(),
    ).toEqual([
      'ACCESS_DENIED',
      'AUTHORIZER_CONFIGURATION_ERROR',
      'AUTHORIZER_FAILURE',
      'MISSING_AUTHENTICATION_TOKEN',
      'UNAUTHORIZED',
    ]);
    expect(template).toContain('/svc-mcp-api-keys/key-authorizer-function-arn');
  }, 120_000);

  soakOnly(
    'fails synth on the team’s own unacknowledged findings, never on the authorizer (cdk-nag runs)',
    async ({ expect }) => {
      const synth = await run(projects.cdk, process.execPath, ['authorizer-app.ts'], {
        CDK_OUTDIR: join(work, 'cdk-unacknowledged.out'),
        ACKNOWLEDGE_OWN_FINDINGS: 'no',
      });
      expect(synth.code).not.toBe(0);
      const flagged = [...synth.output.matchAll(/^\s+(TeamMcp\/\S+)/gm)].map((m) => m[1] ?? '');
      expect(flagged.length).toBeGreaterThan(0);
      expect(flagged.filter((path) => path.startsWith('TeamMcp/McpKeys'))).toEqual([]);
    },
    120_000,
  );

  it('embeds the whole service as one construct with its settings, cdk-nag clean, deploying the prebuilt bundles', async ({
    expect,
  }) => {
    const out = join(work, 'cdk-service.out');
    const synth = await run(projects.cdk, process.execPath, ['service-app.ts'], { CDK_OUTDIR: out });
    expect(synth.output).not.toContain('ERROR');
    expect(synth.code).toBe(0);
    expect(synth.output).toContain('"McpKeys-SvcMcpApiKeys-Stateful","McpKeys-SvcMcpApiKeys-Stateless"');
    const assembly = join(out, 'assembly-McpKeys');
    const templates = readdirSync(assembly).filter((f) => f.endsWith('.template.json'));
    expect(templates).toHaveLength(2);
    const stateless = templates.find((t) => t.includes('Stateless')) ?? '';
    const fns = functionsOf(join(assembly, stateless));
    expect(fns).toHaveLength(readdirSync(join(packageDir('cdk'), 'dist/functions')).length);
    for (const fn of fns) {
      expect(fn).toMatchObject({ Handler: 'index.handler', Runtime: 'nodejs24.x', Architectures: ['arm64'] });
    }
    const createKey = fns.find((f) => f.id.startsWith('CreateKey')) as unknown as {
      Environment: { Variables: object };
    };
    expect(createKey.Environment.Variables).toMatchObject({ MAX_ACTIVE_KEYS: '20' });
    // Every function's code asset is one of the package's prebuilt bundles, byte for byte.
    const bundles = new Set(
      readdirSync(join(packageDir('cdk'), 'dist/functions')).map((fn) =>
        readFileSync(join(packageDir('cdk'), 'dist/functions', fn, 'index.mjs'), 'utf8'),
      ),
    );
    const assets = readdirSync(out).filter((d) => d.startsWith('asset.'));
    expect(assets.length).toBe(fns.length);
    for (const asset of assets)
      expect(bundles.has(readFileSync(join(out, asset, 'index.mjs'), 'utf8'))).toBe(true);
  }, 180_000);
});
