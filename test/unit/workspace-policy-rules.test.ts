import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import {
  assertPolicyAllows,
  clientAllowed,
  DEFAULT_POLICY,
  policyExpiryDays,
  policyMaxDays,
  policyProblem,
  type WorkspacePolicy,
} from '#lib/workspace-policy/rules';

/** A workspace's policy as create, rotate and consent obey it (contract §12, §15; lib/workspace-policy/rules.ts). */
const READ_ONLY: WorkspacePolicy = {
  mcp_access: 'enabled',
  allowed_scopes: ['svc.forms.read'],
  max_expiry_days: 30,
};
const DISABLED: WorkspacePolicy = { ...DEFAULT_POLICY, mcp_access: 'disabled' };
const VERIFIED = { verified_domain: 'Claude.ai' };
const UNVERIFIED = { verified_domain: null };

const thrown = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('did not throw');
};

describe('which OAuth apps a policy admits', () => {
  it('any app without a rule or with `any`; only apps with a metadata document for `verified`', () => {
    expect(clientAllowed(undefined, UNVERIFIED)).toBe(true);
    expect(clientAllowed('any', UNVERIFIED)).toBe(true);
    expect(clientAllowed('verified', VERIFIED)).toBe(true);
    expect(clientAllowed('verified', UNVERIFIED)).toBe(false);
  });

  it('for a list of domains, an app whose document’s host is listed, in any case', () => {
    expect(clientAllowed(['claude.ai'], VERIFIED)).toBe(true);
    expect(clientAllowed(['chatgpt.com'], VERIFIED)).toBe(false);
    expect(clientAllowed(['claude.ai'], UNVERIFIED)).toBe(false);
  });
});

describe('why a policy refuses a credential', () => {
  it('a disabled workspace first, then the scopes it does not allow, then the app', () => {
    expect(policyProblem('w', DISABLED, ['svc.forms.read'])).toEqual({
      workspaceId: 'w',
      reason: 'disabled',
    });
    expect(
      policyProblem('w', READ_ONLY, ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate']),
    ).toEqual({
      workspaceId: 'w',
      reason: 'scopes',
      scopes: ['svc.forms.write', 'svc.forms.generate'],
    });
    const onlyVerified = { ...READ_ONLY, oauth_clients: 'verified' as const };
    expect(policyProblem('w', onlyVerified, ['svc.forms.read'], UNVERIFIED)).toEqual({
      workspaceId: 'w',
      reason: 'client',
    });
    expect(policyProblem('w', onlyVerified, ['svc.forms.read'], VERIFIED)).toBeUndefined();
    // A key has no app: the rule on apps does not concern it.
    expect(policyProblem('w', onlyVerified, ['svc.forms.read'])).toBeUndefined();
  });
});

describe('which kinds of credential a policy admits', () => {
  const KEYS_ONLY: WorkspacePolicy = { ...DEFAULT_POLICY, credential_kinds: ['api_key'] };
  const APPS_ONLY: WorkspacePolicy = { ...DEFAULT_POLICY, credential_kinds: ['oauth_grant'] };

  it('an enterprise grant is a kind of its own: a workspace may admit it alone (only through the IdP)', () => {
    const IDP_ONLY: WorkspacePolicy = { ...DEFAULT_POLICY, credential_kinds: ['enterprise_grant'] };
    const ENTERPRISE = { ...VERIFIED, enterprise: true };
    expect(policyProblem('w', IDP_ONLY, ['svc.forms.read'], ENTERPRISE)).toBeUndefined();
    expect(policyProblem('w', IDP_ONLY, ['svc.forms.read'], VERIFIED)).toEqual({
      workspaceId: 'w',
      reason: 'kind',
      kind: 'oauth_grant',
    });
    expect(policyProblem('w', IDP_ONLY, ['svc.forms.read'])).toEqual({
      workspaceId: 'w',
      reason: 'kind',
      kind: 'api_key',
    });
    expect(policyProblem('w', APPS_ONLY, ['svc.forms.read'], ENTERPRISE)).toEqual({
      workspaceId: 'w',
      reason: 'kind',
      kind: 'enterprise_grant',
    });
    expect(() =>
      assertPolicyAllows(['w'], ['svc.forms.read'], new Map([['w', APPS_ONLY]]), ENTERPRISE),
    ).toThrow(
      expect.objectContaining({
        errors: [expect.objectContaining({ message: expect.stringContaining('organisation’s sign-in') })],
      }),
    );
  });

  it('every kind by default and without the rule; only the listed kinds with it', () => {
    expect(DEFAULT_POLICY.credential_kinds).toEqual(['api_key', 'oauth_grant', 'enterprise_grant']);
    expect(policyProblem('w', READ_ONLY, ['svc.forms.read'])).toBeUndefined();
    expect(policyProblem('w', READ_ONLY, ['svc.forms.read'], VERIFIED)).toBeUndefined();
    expect(policyProblem('w', KEYS_ONLY, ['svc.forms.read'])).toBeUndefined();
    expect(policyProblem('w', KEYS_ONLY, ['svc.forms.read'], VERIFIED)).toEqual({
      workspaceId: 'w',
      reason: 'kind',
      kind: 'oauth_grant',
    });
    expect(policyProblem('w', APPS_ONLY, ['svc.forms.read'], UNVERIFIED)).toBeUndefined();
    expect(policyProblem('w', APPS_ONLY, ['svc.forms.read'])).toEqual({
      workspaceId: 'w',
      reason: 'kind',
      kind: 'api_key',
    });
  });

  it('after a disabled workspace, before the scopes and the app', () => {
    expect(policyProblem('w', { ...DISABLED, credential_kinds: ['oauth_grant'] }, [])?.reason).toBe(
      'disabled',
    );
    const narrow: WorkspacePolicy = {
      ...READ_ONLY,
      credential_kinds: ['api_key'],
      oauth_clients: 'verified',
    };
    expect(policyProblem('w', narrow, ['svc.forms.write'], UNVERIFIED)?.reason).toBe('kind');
  });

  it('names the kind it refuses, and its rule', () => {
    const policies = new Map([['w1', APPS_ONLY]]);
    expect(thrown(() => assertPolicyAllows(['w0', 'w1'], ['svc.forms.read'], policies))).toMatchObject({
      code: 'workspace_policy_denied',
      message: 'A workspace’s policy does not allow this key.',
      errors: [
        {
          input: 'workspaceIds',
          index: 1,
          message:
            'workspace w1 does not allow API keys (its policy limits which kinds of credential may reach it)',
        },
      ],
    });
    expect(
      thrown(() => assertPolicyAllows(['w'], ['svc.forms.read'], new Map([['w', KEYS_ONLY]]), VERIFIED))
        .errors,
    ).toEqual([
      {
        input: 'workspaceIds',
        index: 0,
        message:
          'workspace w does not allow OAuth apps (its policy limits which kinds of credential may reach it)',
      },
    ]);
  });
});

describe('the smallest maximum lifetime among the workspaces', () => {
  it('is the least cap any of them sets, and none when none does', () => {
    const policies = new Map<string, WorkspacePolicy>([
      ['a', { ...READ_ONLY, max_expiry_days: 30 }],
      ['b', { ...READ_ONLY, max_expiry_days: 7 }],
      ['c', { ...READ_ONLY, max_expiry_days: null }],
    ]);
    expect(policyMaxDays(['a', 'b', 'c'], policies)).toBe(7);
    expect(policyMaxDays(['a', 'c', 'unknown'], policies)).toBe(30);
    expect(policyMaxDays(['c', 'unknown'], policies)).toBeUndefined();
  });
});

describe('create and rotate under the policies', () => {
  it('pass when every workspace allows the credential (a workspace without a policy allows all)', () => {
    expect(() =>
      assertPolicyAllows(['a', 'none'], ['svc.forms.read'], new Map([['a', READ_ONLY]])),
    ).not.toThrow();
  });

  it('are refused with every workspace and reason listed, at its index', () => {
    const policies = new Map([
      ['a', READ_ONLY],
      ['b', DISABLED],
      ['c', { ...DEFAULT_POLICY, oauth_clients: ['chatgpt.com'] }],
    ]);
    const key = thrown(() =>
      assertPolicyAllows(['a', 'b'], ['svc.forms.write', 'svc.forms.generate'], policies),
    );
    expect(key).toBeInstanceOf(AppError);
    expect(key.code).toBe('workspace_policy_denied');
    expect(key.detail).toBe('A workspace’s policy does not allow this key.');
    expect(key.errors).toEqual([
      {
        input: 'workspaceIds',
        index: 0,
        message: 'workspace a does not allow svc.forms.write, svc.forms.generate',
      },
      { input: 'workspaceIds', index: 1, message: 'workspace b does not allow MCP access' },
    ]);
    const app = thrown(() => assertPolicyAllows(['none', 'c'], ['svc.forms.read'], policies, VERIFIED));
    expect(app.detail).toBe('A workspace’s policy does not allow this app.');
    expect(app.errors).toEqual([
      {
        input: 'workspaceIds',
        index: 1,
        message: 'workspace c does not allow this app (its policy limits which OAuth apps may connect)',
      },
    ]);
  });
});

describe('a new key’s lifetime under a policy maximum', () => {
  it('is what was asked, or the deployment default, when no policy caps it', () => {
    expect(policyExpiryDays(400, 30, undefined)).toBe(400);
    expect(policyExpiryDays(undefined, 30, undefined)).toBe(30);
  });

  it('is what was asked up to the cap, by default the smaller of the default and the cap', () => {
    expect(policyExpiryDays(7, 30, 7)).toBe(7);
    expect(policyExpiryDays(undefined, 30, 7)).toBe(7);
    expect(policyExpiryDays(undefined, 5, 7)).toBe(5);
  });

  it('is refused above the cap, naming it', () => {
    const err = thrown(() => policyExpiryDays(8, 30, 7));
    expect(err.code).toBe('validation_failed');
    expect(err.detail).toBe('The request failed validation.');
    expect(err.errors).toEqual([
      { input: 'expiresInDays', message: 'must be at most 7 (the workspace policy maximum)' },
    ]);
  });
});
