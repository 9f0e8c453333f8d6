import { describe, expect, it } from 'vitest';
import { accessProblems, effectiveAccess, type Role, roleAllows, SCOPES } from '#lib/access/scopes';

const W1 = '11111111-1111-4111-8111-111111111111';
const W2 = '22222222-2222-4222-8222-222222222222';

describe('scope/role table', () => {
  it.each([
    ['viewer', ['svc.forms.read']],
    ['editor', ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate']],
    ['admin', ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate']],
    ['owner', ['svc.forms.read', 'svc.forms.write', 'svc.forms.generate']],
  ] as const)('a %s may hold exactly %j', (role, allowed) => {
    expect(SCOPES.filter((s) => roleAllows(role, s))).toEqual(allowed);
  });
});

describe('effective access', () => {
  const roles = (entries: [string, Role][]) => new Map(entries);

  it('keeps only workspaces where the creator is currently a member', () => {
    const access = effectiveAccess([W1, W2], ['svc.forms.read'], roles([[W2, 'viewer']]));
    expect(access).toEqual([{ id: W2, role: 'viewer', scopes: ['svc.forms.read'] }]);
  });

  it('adds the read scope that write and generate imply', () => {
    const access = effectiveAccess([W1], ['svc.forms.write'], roles([[W1, 'editor']]));
    expect(access).toEqual([{ id: W1, role: 'editor', scopes: ['svc.forms.read', 'svc.forms.write'] }]);
  });

  it('drops write and generate when the role falls to viewer', () => {
    const access = effectiveAccess([W1], ['svc.forms.write', 'svc.forms.generate'], roles([[W1, 'viewer']]));
    expect(access).toEqual([{ id: W1, role: 'viewer', scopes: ['svc.forms.read'] }]);
  });

  it('is empty when no membership is left', () => {
    expect(effectiveAccess([W1], ['svc.forms.read'], roles([]))).toEqual([]);
  });
});

describe('access problems on create', () => {
  it('names each workspace and why', () => {
    const problems = accessProblems(
      [W1, W2],
      ['svc.forms.read', 'svc.forms.write'],
      new Map([[W2, 'viewer' as const]]),
    );
    expect(problems).toEqual([
      { workspaceId: W1, reason: 'not_a_member' },
      { workspaceId: W2, reason: 'role_too_low', role: 'viewer', deniedScopes: ['svc.forms.write'] },
    ]);
  });

  it('is empty when every workspace allows every scope', () => {
    expect(accessProblems([W1], ['svc.forms.generate'], new Map([[W1, 'owner' as const]]))).toEqual([]);
  });
});
