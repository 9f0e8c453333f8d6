import { describe, expect, it } from 'vitest';
import { effectiveAccess, expandScopes, type Role } from '#lib/access/scopes';

/** Edges of contract §4's table that the main access tests leave out. */
const W1 = '11111111-1111-4111-8111-111111111111';
const W2 = '22222222-2222-4222-8222-222222222222';
const roles = (entries: [string, Role][]) => new Map(entries);

describe('what a key may do in a workspace', () => {
  it('generate implies read, as write does', () => {
    expect(expandScopes(['svc.forms.generate'])).toEqual(['svc.forms.read', 'svc.forms.generate']);
  });

  it('a viewer keeps read through a generate-only key, and nothing more', () => {
    expect(effectiveAccess([W1], ['svc.forms.generate'], roles([[W1, 'viewer']]))).toEqual([
      { id: W1, role: 'viewer', scopes: ['svc.forms.read'] },
    ]);
  });

  it('a role the table does not know grants nothing, not even read', () => {
    const unknown = 'guest' as Role;
    expect(effectiveAccess([W1], ['svc.forms.read'], roles([[W1, unknown]]))).toEqual([]);
  });

  it('a key with no scopes has access in no workspace, whatever the creator’s role', () => {
    expect(
      effectiveAccess(
        [W1, W2],
        [],
        roles([
          [W1, 'owner'],
          [W2, 'viewer'],
        ]),
      ),
    ).toEqual([]);
  });
});
