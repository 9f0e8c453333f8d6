import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderEndpointTable, withEndpointTable } from '#lib/api-docs/endpoint-table';
import { MANAGEMENT_ROUTES, ROUTES, routeKey } from '#lib/routes/index';
import { routeErrorCodes, STACK_CODES } from '#lib/routes/route-module';
import { routeOf } from '#test/support/route-codes';
import { missingCodes } from '#test/support/route-codes-reporter';

describe('route modules', () => {
  it('keep the endpoint table of docs/api.md as generated (run `npm run openapi` after changing a route)', () => {
    const readme = readFileSync('docs/api.md', 'utf8');
    expect(readme).toContain(renderEndpointTable());
    expect(withEndpointTable(readme)).toBe(readme);
  });

  it('name each function, operation and method+path once', () => {
    for (const key of ['name', 'operationId'] as const) {
      const values = MANAGEMENT_ROUTES.map((m) => m[key]);
      expect(new Set(values).size, key).toBe(values.length);
    }
    const keys = ROUTES.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('declare only codes the stack does not already answer, and revoke never answers 409', () => {
    for (const module of MANAGEMENT_ROUTES)
      for (const code of module.errors ?? [])
        expect(STACK_CODES[module.auth], module.name).not.toContain(code);
    const revoke = MANAGEMENT_ROUTES.find((m) => m.method === 'DELETE');
    expect(revoke && routeErrorCodes(revoke)).not.toContain('conflict');
  });
});

describe('the route-codes check', () => {
  it('finds the route of a raw path and of a route template', () => {
    expect(routeOf('DELETE', '/v1/mcp/api-keys/3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61')).toBe('revoke-key');
    expect(routeOf('POST', '/v1/mcp/api-keys/{key_id}/rotate')).toBe('rotate-key');
    expect(routeOf('GET', '/v1/mcp/api-keys?limit=5')).toBe('list-keys');
    expect(routeOf('PUT', '/v1/mcp/api-keys')).toBeUndefined();
  });

  it('reports every declared code when nothing was seen, and nothing when all were', () => {
    const none = missingCodes(new Set());
    expect(none).toContain('POST /v1/mcp/api-keys: key_limit_reached');
    expect(none).toContain('the stack (github-secret-scanning): invalid_signature');
    const all = new Set(MANAGEMENT_ROUTES.flatMap((m) => routeErrorCodes(m).map((c) => `${m.name} ${c}`)));
    expect(missingCodes(all)).toEqual([]);
    all.delete('rotate-key key_expired');
    expect(missingCodes(all)).toEqual(['POST /v1/mcp/api-keys/{key_id}/rotate: key_expired']);
    // A stack code seen on one route of the stack that answers it is seen for all of them.
    for (const m of MANAGEMENT_ROUTES) if (m.name !== 'list-keys') all.delete(`${m.name} payload_too_large`);
    expect(missingCodes(all)).toEqual(['POST /v1/mcp/api-keys/{key_id}/rotate: key_expired']);
    all.delete('list-keys payload_too_large');
    expect(missingCodes(all)).toContain(
      `the stack (${MANAGEMENT_ROUTES.map((m) => m.name).join(', ')}): payload_too_large`,
    );
  });
});
