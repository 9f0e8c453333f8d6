import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, OPENAPI_PATH, renderOpenApi } from '#lib/api-docs/openapi';
import { ERROR_CATALOG } from '#lib/errors';
import { GITHUB_LIMITS, LEAK_LIMITS } from '#lib/limits';
import { createKeyBody } from '#lib/routes/create-key';
import { OAUTH_ROUTES } from '#lib/routes/oauth/index';

interface Operation {
  operationId: string;
  tags?: string[];
  description?: string;
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
}
const operations = () =>
  Object.values(buildOpenApiDocument().paths ?? {}).flatMap(
    (item) => Object.values(item as Record<string, Operation>) as Operation[],
  );

describe('OpenAPI document', () => {
  it('is committed up to date (run `npm run openapi` after changing a schema)', () => {
    expect(readFileSync(OPENAPI_PATH, 'utf8')).toBe(renderOpenApi());
  });

  it('documents every error code and status of the contract', () => {
    const doc = buildOpenApiDocument();
    const text = JSON.stringify(doc);
    for (const [code, { status }] of Object.entries(ERROR_CATALOG)) {
      expect(text, code).toContain(`"code":"${code}"`);
      const statuses = Object.values(doc.paths ?? {}).flatMap((item) =>
        Object.values(item as Record<string, { responses?: Record<string, unknown> }>).flatMap((op) =>
          Object.keys(op.responses ?? {}),
        ),
      );
      expect(statuses, code).toContain(String(status));
    }
  });

  it('documents the success statuses of the five operations', () => {
    const paths = buildOpenApiDocument().paths as Record<
      string,
      Record<string, { responses: Record<string, unknown> }>
    >;
    expect(Object.keys(paths['/v1/mcp/api-keys']?.post?.responses ?? {})).toContain('201');
    expect(Object.keys(paths['/v1/mcp/api-keys']?.get?.responses ?? {})).toContain('200');
    expect(Object.keys(paths['/v1/mcp/api-keys/{key_id}/rotate']?.post?.responses ?? {})).toContain('201');
    expect(Object.keys(paths['/v1/mcp/api-keys/{key_id}']?.delete?.responses ?? {})).toContain('200');
    expect(Object.keys(paths['/v1/mcp/api-keys/{key_id}/events']?.get?.responses ?? {})).toContain('200');
  });

  it('states the name rule: trimmed, and no control or format characters such as U+202E', () => {
    const schemas = buildOpenApiDocument().components?.schemas as Record<
      string,
      { properties: Record<string, { pattern: string; description: string }> }
    >;
    const name = schemas.CreateKeyRequest?.properties.name;
    expect(name?.description).toMatch(/Trimmed/);
    expect(name?.description).toMatch(/U\+202E/);
    // JSON Schema patterns are ECMA-262 regular expressions with Unicode semantics.
    const pattern = new RegExp(name?.pattern ?? '', 'u');
    expect(pattern.test('Claude Desktop (laptop) – ünïcödé 🙂')).toBe(true);
    for (const bad of ['a\u202Eb', 'a\u200Bb', 'a\u0007b', 'a\u2028b', 'a\u{E0041}b'])
      expect(pattern.test(bad), JSON.stringify(bad)).toBe(false);
  });

  it('names its servers: a deployment and local mode', () => {
    const servers = buildOpenApiDocument().servers ?? [];
    expect(servers.map((s) => s.url)).toEqual([
      'https://{apiId}.execute-api.{region}.amazonaws.com',
      'http://127.0.0.1:{port}',
    ]);
  });

  it('gives every operation a tag the document defines and a description', () => {
    const defined = (buildOpenApiDocument().tags ?? []).map((t) => t.name);
    for (const op of operations()) {
      expect(op.tags?.length, op.operationId).toBeGreaterThan(0);
      for (const tag of op.tags ?? []) expect(defined, op.operationId).toContain(tag);
      expect(op.description?.trim(), op.operationId).toBeTruthy();
    }
  });

  it('declares security [] on exactly the two leak routes and the OAuth protocol, a user JWT on every other', () => {
    const all = operations();
    const open = all.filter((op) => op.security?.length === 0);
    const oauth = OAUTH_ROUTES.filter((m) => m.openapi !== false).map((m) => m.operationId);
    expect(open.map((op) => op.operationId).sort()).toEqual(
      ['githubSecretScanning', 'reportLeakedKeys', ...oauth].sort(),
    );
    for (const op of open.filter((o) => oauth.includes(o.operationId ?? '')))
      expect(op.tags, op.operationId).toEqual(['oauth']);
    for (const op of all.filter((o) => !open.includes(o)))
      expect(op.security, op.operationId).toEqual([{ userJwt: [] }]);
  });

  it('states the leak routes’ limits: 100 strings in 64 KiB, and GitHub’s 10,000 matches in 2 MiB', () => {
    const doc = buildOpenApiDocument();
    const schemas = doc.components?.schemas as Record<
      string,
      { maxItems?: number; properties?: Record<string, { maxItems?: number }> }
    >;
    expect(schemas.GithubSecretScanningMatches?.maxItems).toBe(GITHUB_LIMITS.maxMatches);
    expect(schemas.LeakReportRequest?.properties?.keys?.maxItems).toBe(LEAK_LIMITS.maxKeys);
    const byId = Object.fromEntries(operations().map((op) => [op.operationId, op.description ?? '']));
    expect(byId.githubSecretScanning).toContain('1–10,000 matches in at most 2 MiB');
    expect(byId.reportLeakedKeys).toContain('1–100 strings in at most 64 KiB');
  });

  it('says uniqueItems on workspace_ids and scopes, and the body schema refuses what it says', () => {
    const schemas = buildOpenApiDocument().components?.schemas as Record<
      string,
      { properties: Record<string, { uniqueItems?: boolean }> }
    >;
    const create = schemas.CreateKeyRequest?.properties;
    expect(create?.workspace_ids?.uniqueItems).toBe(true);
    expect(create?.scopes?.uniqueItems).toBe(true);
    const ws = '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61';
    const body = { name: 'k', workspace_ids: [ws], scopes: ['svc.forms.read'] };
    expect(createKeyBody(90).safeParse(body).success).toBe(true);
    for (const [dup, path] of [
      [{ workspace_ids: [ws, ws.toUpperCase()] }, 'workspace_ids.1'],
      [{ scopes: ['svc.forms.read', 'svc.forms.read'] }, 'scopes.1'],
    ] as const) {
      const parsed = createKeyBody(90).safeParse({ ...body, ...dup });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual([path]);
    }
  });
});
