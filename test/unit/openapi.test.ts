import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '#lib/errors';
import { buildOpenApiDocument, OPENAPI_PATH, renderOpenApi } from '#lib/http/openapi';

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
});
