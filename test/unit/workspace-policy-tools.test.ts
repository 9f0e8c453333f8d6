import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POLICY,
  narrowedScopes,
  policyCutsOff,
  rulesByWorkspace,
  rulesOf,
  type WorkspacePolicy,
} from '#lib/workspace-policy/rules';

/**
 * What a workspace's policy leaves a credential there (contract §19; lib/workspace-policy/rules.ts):
 * the rules written onto it (tools, the scopes it narrows an enterprise grant to, the caps), and
 * whether the policy cuts a credential off or leaves it narrowed.
 */

const policy = (over: Partial<WorkspacePolicy> = {}): WorkspacePolicy => ({ ...DEFAULT_POLICY, ...over });
const READ_ONLY = policy({ allowed_scopes: ['svc.forms.read'] });
const ENTERPRISE = { verified_domain: null, enterprise: true };
const APP = { verified_domain: 'app.example.com' };

describe('the rules a policy writes onto a credential', () => {
  it('none for no policy, the default one, or a policy that restricts nothing the credential holds', () => {
    expect(rulesOf(undefined)).toBeUndefined();
    expect(rulesOf(undefined, ['svc.forms.read', 'svc.forms.write'])).toBeUndefined();
    expect(rulesOf(DEFAULT_POLICY)).toBeUndefined();
    expect(rulesOf(DEFAULT_POLICY, ['svc.forms.read', 'svc.forms.write'])).toBeUndefined();
    expect(rulesOf(READ_ONLY)).toBeUndefined();
    expect(rulesOf(READ_ONLY, ['svc.forms.read'])).toBeUndefined();
    expect(rulesOf(READ_ONLY, [])).toBeUndefined();
  });

  it('the tools it allows, a copy of its list; an empty list allows none', () => {
    const allowed = ['list_forms', 'read_draft'];
    const rules = rulesOf(policy({ allowed_tools: allowed }));
    expect(rules).toEqual({ tools: ['list_forms', 'read_draft'] });
    expect(rules?.tools).not.toBe(allowed);
    expect(rulesOf(policy({ allowed_tools: [] }))).toEqual({ tools: [] });
    expect(rulesOf(policy({ allowed_tools: null }))).toBeUndefined();
  });

  it('the scopes it allows of those a narrowed credential holds, when fewer', () => {
    expect(rulesOf(READ_ONLY, ['svc.forms.read', 'svc.forms.write'])).toEqual({ scopes: ['svc.forms.read'] });
    expect(
      rulesOf(policy({ allowed_scopes: ['svc.forms.write'] }), ['svc.forms.read', 'svc.forms.write']),
    ).toEqual({
      scopes: ['svc.forms.write'],
    });
  });

  it('its caps per minute and per day, none for null', () => {
    expect(rulesOf(policy({ max_calls_per_minute: 60 }))).toEqual({ per_minute: 60 });
    expect(rulesOf(policy({ max_calls_per_day: 5000 }))).toEqual({ per_day: 5000 });
    expect(rulesOf(policy({ max_calls_per_minute: null, max_calls_per_day: null }))).toBeUndefined();
    expect(
      rulesOf(
        policy({
          allowed_scopes: ['svc.forms.read'],
          allowed_tools: ['list_forms'],
          max_calls_per_minute: 1,
          max_calls_per_day: 2,
        }),
        ['svc.forms.read', 'svc.forms.generate'],
      ),
    ).toEqual({ tools: ['list_forms'], scopes: ['svc.forms.read'], per_minute: 1, per_day: 2 });
  });

  it('by workspace, those that restrict nothing and those without a policy left out', () => {
    const policies = new Map([
      ['w1', policy({ allowed_tools: ['list_forms'] })],
      ['w2', DEFAULT_POLICY],
      ['w4', policy({ max_calls_per_day: 9 })],
    ]);
    expect(rulesByWorkspace(['w1', 'w2', 'w3'], policies)).toEqual({ w1: { tools: ['list_forms'] } });
    expect(rulesByWorkspace([], policies)).toEqual({});
    expect(
      rulesByWorkspace(['w2', 'w5'], new Map([['w2', READ_ONLY]]), ['svc.forms.read', 'svc.forms.write']),
    ).toEqual({
      w2: { scopes: ['svc.forms.read'] },
    });
  });
});

describe('whether a policy cuts a credential off or narrows it', () => {
  it('a policy that refuses nothing keeps it', () => {
    expect(policyCutsOff('w', READ_ONLY, ['svc.forms.read'])).toBe(false);
    expect(policyCutsOff('w', READ_ONLY, ['svc.forms.read'], ENTERPRISE)).toBe(false);
  });

  it('a key’s or a consent grant’s scope the policy does not allow cuts it off', () => {
    expect(policyCutsOff('w', READ_ONLY, ['svc.forms.write'])).toBe(true);
    expect(policyCutsOff('w', READ_ONLY, ['svc.forms.write'], APP)).toBe(true);
  });

  it('an enterprise grant stays, narrowed, while a scope it holds (implied ones too) is allowed', () => {
    expect(policyCutsOff('w', READ_ONLY, ['svc.forms.read', 'svc.forms.write'], ENTERPRISE)).toBe(false);
    expect(policyCutsOff('w', READ_ONLY, ['svc.forms.write'], ENTERPRISE)).toBe(false);
    const writeOnly = policy({ allowed_scopes: ['svc.forms.write'] });
    expect(policyCutsOff('w', writeOnly, ['svc.forms.generate'], ENTERPRISE)).toBe(true);
  });

  it('every other refusal cuts an enterprise grant off: disabled, its kind, or its app', () => {
    expect(policyCutsOff('w', policy({ mcp_access: 'disabled' }), ['svc.forms.read'], ENTERPRISE)).toBe(true);
    const keysOnly = policy({ credential_kinds: ['api_key'] });
    expect(policyCutsOff('w', keysOnly, ['svc.forms.read'], ENTERPRISE)).toBe(true);
    const verifiedOnly = policy({ allowed_scopes: ['svc.forms.read'], oauth_clients: 'verified' });
    expect(policyCutsOff('w', verifiedOnly, ['svc.forms.write'], ENTERPRISE)).toBe(true);
    expect(
      policyCutsOff('w', verifiedOnly, ['svc.forms.write'], { ...ENTERPRISE, verified_domain: 'a.example' }),
    ).toBe(false);
  });

  it('the scopes a policy narrows: an enterprise grant’s, implied ones added; none for another credential', () => {
    expect(narrowedScopes(['svc.forms.write'], ENTERPRISE)).toEqual(['svc.forms.read', 'svc.forms.write']);
    expect(narrowedScopes(['svc.forms.write'], APP)).toBeUndefined();
    expect(narrowedScopes(['svc.forms.write'], { ...APP, enterprise: false })).toBeUndefined();
    expect(narrowedScopes(['svc.forms.write'])).toBeUndefined();
  });
});
