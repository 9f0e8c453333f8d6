import { describe, expect, it } from 'vitest';
import { REFERENCE_TOOLS, type ToolCatalogue } from '#lib/access/tools';
import type { RateWriter } from '#lib/keys/limiter';
import { rateAttribute } from '#lib/keys/limits';
import { limitedResult } from '#lib/keys/rate-check';
import { checkedResult, toolRefusal } from '#lib/keys/tool-check';
import type { ValidResult, VerifyResult } from '#lib/keys/verification';
import { type Narrowing, type Verified, verifierState } from '#lib/keys/verifier-state';
import { memoryPeppers } from '#test/support/lifecycle';

/**
 * What a verification checks once the credential is valid (contract §19; lib/keys/tool-check.ts
 * and rate-check.ts): the tool its call names, refused when it may call it in none of its
 * workspaces and by whom, and its limits, with the counters its own read found.
 */

const AT = new Date('2026-12-06T10:15:42.000Z');

function state(options: { tools?: ToolCatalogue; rates?: RateWriter } = {}) {
  return verifierState({
    keys: { get: async () => undefined, recordUse: async () => false },
    memberships: { rolesFor: async () => new Map() },
    peppers: memoryPeppers(),
    now: () => AT,
    ...options,
  });
}

const valid = (over: Partial<ValidResult> = {}): ValidResult => ({
  outcome: 'valid',
  kind: 'api_key',
  user_id: 'u',
  key_id: 'k1',
  expires_at: '2027-01-01T00:00:00.000Z',
  scopes: ['svc.forms.read', 'svc.forms.write'],
  workspaces: [
    { id: 'w1', role: 'editor', scopes: ['svc.forms.read', 'svc.forms.write'], tools: ['list_forms'] },
    { id: 'w2', role: 'editor', scopes: ['svc.forms.read'], tools: ['list_forms', 'read_draft'] },
  ],
  tools: ['list_forms', 'read_draft'],
  ...over,
});

const call = (name?: string, method = 'tools/call') => ({ method, name });
const verified = (result: VerifyResult, narrowing?: Narrowing): Verified => ({
  result,
  ...(narrowing && { narrowing }),
});

describe('the tool a call names', () => {
  const catalogued = state({ tools: REFERENCE_TOOLS });

  it('is not checked for another method, a call without a name, no call, or a refused credential', () => {
    const v = verified(valid());
    expect(toolRefusal(catalogued, v, undefined)).toBeUndefined();
    expect(toolRefusal(catalogued, v, call('replace_draft', 'tools/list'))).toBeUndefined();
    expect(toolRefusal(catalogued, v, call(undefined))).toBeUndefined();
    const revoked: VerifyResult = { outcome: 'revoked', key_id: 'k1' };
    expect(checkedResult(catalogued, verified(revoked), call('replace_draft'))).toBe(revoked);
  });

  it('passes when some workspace allows it, or some workspace’s tools are not known', () => {
    const v = verified(valid());
    expect(toolRefusal(catalogued, v, call('read_draft'))).toBeUndefined();
    expect(checkedResult(catalogued, v, call('read_draft'))).toBe(v.result);
    const unknown = valid({
      workspaces: [
        { id: 'w1', role: 'editor', scopes: ['svc.forms.read'], tools: [] },
        { id: 'w2', role: 'editor', scopes: ['svc.forms.read'] },
      ],
    });
    expect(toolRefusal(catalogued, verified(unknown), call('anything'))).toBeUndefined();
  });

  it('refused by the policies of the workspaces where its own list and scopes allow it', () => {
    // replace_draft: its scopes allow it in w1 only, its own list does not limit it.
    expect(checkedResult(catalogued, verified(valid(), {}), call('replace_draft'))).toEqual({
      outcome: 'tool_not_allowed',
      key_id: 'k1',
      kind: 'api_key',
      tool: 'replace_draft',
      by: 'policy',
      tools: ['list_forms', 'read_draft'],
      workspace_ids: ['w1'],
    });
    expect(
      toolRefusal(catalogued, verified(valid(), { tools: ['compile_dsl'] }), call('compile_dsl')),
    ).toEqual(expect.objectContaining({ by: 'policy', workspace_ids: ['w1', 'w2'] }));
  });

  it('refused by the credential when its own list or its scopes leave the tool out everywhere', () => {
    const app = valid({ kind: 'oauth', tools: undefined });
    expect(toolRefusal(catalogued, verified(app, { tools: ['list_forms'] }), call('replace_draft'))).toEqual({
      outcome: 'tool_not_allowed',
      key_id: 'k1',
      kind: 'oauth',
      tool: 'replace_draft',
      by: 'credential',
      tools: [],
      workspace_ids: [],
    });
    expect(toolRefusal(catalogued, verified(valid(), {}), call('generate_form_preview'))).toMatchObject({
      by: 'credential',
      workspace_ids: [],
    });
    // A tool the catalogue does not name is the credential's: no workspace allows it.
    expect(toolRefusal(catalogued, verified(valid()), call('drop_tables'))).toMatchObject({
      by: 'credential',
      tool: 'drop_tables',
    });
  });

  it('without a catalogue, by the credential’s own list, else by the policies', () => {
    const bare = state();
    expect(
      toolRefusal(bare, verified(valid(), { tools: ['list_forms'] }), call('replace_draft')),
    ).toMatchObject({
      by: 'credential',
      workspace_ids: [],
    });
    expect(toolRefusal(bare, verified(valid()), call('replace_draft'))).toMatchObject({
      by: 'policy',
      workspace_ids: ['w1', 'w2'],
    });
  });

  it('a name no tool can have is never repeated in the sentence', () => {
    expect(toolRefusal(catalogued, verified(valid()), call('x"}, {"evil'))).toMatchObject({
      tool: 'a tool of that name',
    });
    expect(toolRefusal(catalogued, verified(valid()), call('t'.repeat(65)))).toMatchObject({
      tool: 'a tool of that name',
    });
  });
});

/** A writer that answers each add as the total, and records the writes. */
function rates() {
  const writes: Record<string, number>[] = [];
  const writer: RateWriter = {
    addRates: async (_id, adds) => {
      writes.push(adds);
      return adds;
    },
  };
  return { writer, writes };
}

describe('the limits a valid call is checked against', () => {
  const minute = rateAttribute('2026-12-06T10:15');

  it('a credential over its own limit is refused with when it can call again', () => {
    const limited = state({ rates: rates().writer });
    const v = verified(valid({ kind: 'oauth' }), { limits: { per_minute: 2 } });
    expect(limitedResult(limited, v, AT)).toBe(v.result);
    expect(limitedResult(limited, v, AT)).toBe(v.result);
    expect(limitedResult(limited, v, AT)).toEqual({
      outcome: 'rate_limited',
      key_id: 'k1',
      kind: 'oauth',
      window: 'minute',
      limit: 2,
      by: 'credential',
      until: '2026-12-06T10:16:00.000Z',
      retry_after: 18,
    });
  });

  it('counts what its read found stored, and the caps of the workspaces it reaches only', () => {
    const limited = state({ rates: rates().writer });
    const stored = verified(valid(), { limits: { per_minute: 5 }, rate_counts: { [minute]: 5 } });
    expect(limitedResult(limited, stored, AT)).toMatchObject({ outcome: 'rate_limited', limit: 5 });
    const capped = verified(valid({ key_id: 'k2' }), {
      workspace_rules: { w2: { per_day: 2 }, gone: { per_day: 1 } },
    });
    expect(limitedResult(limited, capped, AT)).toBe(capped.result);
    expect(limitedResult(limited, capped, AT)).toBe(capped.result);
    expect(limitedResult(limited, capped, AT)).toMatchObject({
      outcome: 'rate_limited',
      key_id: 'k2',
      window: 'day',
      limit: 2,
      by: 'policy',
      workspace_id: 'w2',
    });
  });

  it('nothing is counted without a rate writer, without limits, or for a refusal', async () => {
    const { writer, writes } = rates();
    const limited = state({ rates: writer });
    const over = { limits: { per_minute: 1 }, rate_counts: { [minute]: 9 } };
    expect(limitedResult(state(), verified(valid(), over), AT)).toMatchObject({ outcome: 'valid' });
    const refusal: VerifyResult = { outcome: 'no_access', key_id: 'k3' };
    expect(limitedResult(limited, verified(refusal, over), AT)).toBe(refusal);
    const unlimited = verified(valid({ key_id: 'k4' }), { tools: ['list_forms'] });
    expect(limitedResult(limited, unlimited, AT)).toBe(unlimited.result);
    expect(limitedResult(limited, verified(valid({ key_id: 'k5' })), AT)).toMatchObject({ outcome: 'valid' });
    for (const id of ['k1', 'k3', 'k4', 'k5']) expect(limited.limiter?.writeDue(id, AT)).toBeUndefined();
    expect(writes).toEqual([]);
  });

  it('a credential without limits takes no place among the 5,000 the limiter keeps', () => {
    const limited = state({ rates: rates().writer });
    for (let i = 0; i < 5000; i++)
      limitedResult(limited, verified(valid({ key_id: `k${i}` }), { limits: { per_day: 9 } }), AT);
    limitedResult(limited, verified(valid({ key_id: 'free' }), { tools: ['list_forms'] }), AT);
    expect(limited.limiter?.writeDue('k0', AT)).toBeDefined();
  });
});
