import { describe, expect, it } from 'vitest';
import { countedUse } from '#lib/keys/usage';
import {
  addUse,
  emptyTally,
  MAX_TOOLS_PER_BUCKET,
  mergeTally,
  OTHER_TOOL,
  REFUSAL_REASONS,
  type Tally,
  writtenAtOnce,
} from '#lib/usage/model';

/**
 * What tools and limits add to usage (contract §19; lib/usage/model.ts): a refused tool counted
 * by name, an allowed call whose method is unknown counted as unnamed, a call over a limit as
 * `rate_limited`, and tallies that merge all three.
 */

describe('the refusals usage counts', () => {
  it('a tool not allowed and a call over a limit, besides the verification’s own', () => {
    expect(REFUSAL_REASONS).toEqual([
      'revoked',
      'expired',
      'no_access',
      'wrong_resource',
      'tool_not_allowed',
      'rate_limited',
    ]);
    // Only a credential that may never be presented again has its count written at once.
    expect(REFUSAL_REASONS.filter(writtenAtOnce)).toEqual(['revoked', 'expired']);
    expect(writtenAtOnce('allowed')).toBe(false);
  });

  it('a refused tool counts under refused and by its name; a call over a limit counts no tool', () => {
    const tally = emptyTally();
    addUse(tally, { outcome: 'tool_not_allowed', tool: 'replace_draft' });
    addUse(tally, { outcome: 'tool_not_allowed', tool: 'replace_draft' });
    addUse(tally, { outcome: 'tool_not_allowed' });
    addUse(tally, { outcome: 'rate_limited', tool: 'list_forms' });
    addUse(tally, { outcome: 'no_access', tool: 'list_forms', unnamed: true });
    expect(tally).toEqual({
      calls: 5,
      refused: { tool_not_allowed: 3, rate_limited: 1, no_access: 1 },
      tools: {},
      refused_tools: { replace_draft: 2 },
    });
  });

  it('refused tools keep at most 50 names a bucket, the rest under (other)', () => {
    const tally = emptyTally();
    for (let i = 0; i < MAX_TOOLS_PER_BUCKET + 3; i++)
      addUse(tally, { outcome: 'tool_not_allowed', tool: `t${i}` });
    addUse(tally, { outcome: 'tool_not_allowed', tool: 't0' });
    expect(Object.keys(tally.refused_tools ?? {})).toHaveLength(MAX_TOOLS_PER_BUCKET + 1);
    expect(tally.refused_tools?.[OTHER_TOOL]).toBe(3);
    expect(tally.refused_tools?.t0).toBe(2);
  });

  it('an allowed call with a tool counts the tool; one whose method is unknown counts as unnamed', () => {
    const tally = emptyTally();
    addUse(tally, { outcome: 'allowed', tool: 'list_forms', unnamed: true });
    addUse(tally, { outcome: 'allowed', unnamed: true });
    addUse(tally, { outcome: 'allowed', unnamed: true });
    addUse(tally, { outcome: 'allowed' });
    expect(tally).toEqual({ calls: 4, refused: {}, tools: { list_forms: 1 }, unnamed: 2 });
  });
});

describe('tallies merged', () => {
  it('add their refused tools and unnamed calls, made where the target had none', () => {
    const into: Tally = { calls: 1, refused: {}, tools: {} };
    mergeTally(into, {
      calls: 3,
      refused: { tool_not_allowed: 2, rate_limited: 1 },
      tools: {},
      refused_tools: { replace_draft: 2 },
      unnamed: 1,
    });
    mergeTally(into, {
      calls: 2,
      refused: { tool_not_allowed: 1 },
      tools: {},
      refused_tools: { replace_draft: 1, create_form: 1 },
      unnamed: 4,
    });
    mergeTally(into, { calls: 0, refused: {}, tools: {} });
    expect(into).toEqual({
      calls: 6,
      refused: { tool_not_allowed: 3, rate_limited: 1 },
      tools: {},
      refused_tools: { replace_draft: 3, create_form: 1 },
      unnamed: 5,
    });
  });

  it('a tally without either gains neither', () => {
    expect(mergeTally(emptyTally(), { calls: 1, refused: {}, tools: { a: 1 } })).toEqual({
      calls: 1,
      refused: {},
      tools: { a: 1 },
    });
  });
});

describe('what a verification counts', () => {
  const valid = {
    outcome: 'valid' as const,
    kind: 'api_key' as const,
    user_id: 'u',
    key_id: 'k',
    expires_at: '2027-01-01T00:00:00.000Z',
    scopes: [],
    workspaces: [],
  };

  it('a refused tool with its tool, a call over a limit without one', () => {
    const refusal = {
      outcome: 'tool_not_allowed' as const,
      key_id: 'k',
      kind: 'api_key' as const,
      tool: 'replace_draft',
      by: 'credential' as const,
      tools: [],
      workspace_ids: [],
    };
    const call = { method: 'tools/call', name: 'replace_draft' };
    expect(countedUse({ result: refusal, kind: 'api_key', userId: 'u' }, call)).toEqual({
      credential_id: 'k',
      kind: 'api_key',
      outcome: 'tool_not_allowed',
      user_id: 'u',
      tool: 'replace_draft',
    });
    const limited = {
      outcome: 'rate_limited' as const,
      key_id: 'k',
      kind: 'oauth' as const,
      window: 'minute' as const,
      limit: 1,
      by: 'credential' as const,
      until: '2026-12-06T10:16:00.000Z',
      retry_after: 3,
    };
    expect(countedUse({ result: limited, kind: 'oauth_grant', userId: 'u' }, call)).toEqual({
      credential_id: 'k',
      kind: 'oauth_grant',
      outcome: 'rate_limited',
      user_id: 'u',
    });
  });

  it('an allowed call without a method is unnamed; one with a method is not', () => {
    expect(countedUse({ result: valid, kind: 'api_key' }, undefined)).toMatchObject({ unnamed: true });
    expect(countedUse({ result: valid, kind: 'api_key' }, {})).toMatchObject({ unnamed: true });
    expect(countedUse({ result: valid, kind: 'api_key' }, { method: 'tools/list' })).not.toHaveProperty(
      'unnamed',
    );
  });
});
