import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import { admitCredential } from '#lib/keys/admission';
import { rotateKey } from '#lib/keys/lifecycle';
import { callsInLastWeek, type KeyRecord, toMetadata } from '#lib/keys/model';
import { keptKind, type VerifiedKey } from '#lib/keys/verifier-state';
import { dayCallsAttribute, fromKeyItem } from '#lib/store/key-item';
import { memoryService } from '#test/support/lifecycle';

/**
 * What the key list shows of a credential (lib/keys/model.ts): a grant's app and where it was
 * given, an enterprise grant's identity provider, the calls of the last seven days; the key item as
 * it is read back (lib/store/key-item.ts); and create's refusal worded for an app.
 */

const NOW = new Date('2026-12-06T08:00:00.000Z');
const key: KeyRecord = {
  id: 'k1',
  user_id: 'alice',
  lineage_id: 'k1',
  name: 'laptop',
  workspace_ids: ['w1'],
  scopes: ['svc.forms.read'],
  digest: 'ZGlnZXN0',
  pepper_version: 1,
  key_hint: 'svc_mcp_v1_…abcd',
  created_at: '2026-12-01T00:00:00.000Z',
  expires_at: '2027-01-01T00:00:00.000Z',
};
const client = {
  id: 'https://app.example.com/client.json',
  name: 'Assistant',
  verified_domain: 'app.example.com',
};
const grantOf = (idp?: string): KeyRecord => ({
  ...key,
  digest: '',
  kind: idp ? 'enterprise_grant' : 'oauth_grant',
  grant: {
    client,
    redirect_uri: idp ? '' : 'http://127.0.0.1:8123/cb',
    redirect_host: idp ? '' : '127.0.0.1:8123',
    resource: 'https://mcp.example.com/mcp',
    ...(idp && { idp }),
  },
});

describe('the metadata of a credential', () => {
  it('an API key names no app, no redirect and no identity provider', () => {
    const shown = toMetadata(key, NOW);
    expect(shown.kind).toBe('api_key');
    for (const field of ['client', 'redirect_host', 'identity_provider'])
      expect(shown).not.toHaveProperty(field);
  });

  it('an OAuth grant names its app and the host its code was sent to, and no identity provider', () => {
    const shown = toMetadata(grantOf(), NOW);
    expect(shown).toMatchObject({ kind: 'oauth_grant', client, redirect_host: '127.0.0.1:8123' });
    expect(shown).not.toHaveProperty('identity_provider');
  });

  it('an enterprise grant names its app and its identity provider’s host, and no redirect', () => {
    const shown = toMetadata(grantOf('https://idp.example.org:8443/tenant'), NOW);
    expect(shown).toMatchObject({
      kind: 'enterprise_grant',
      client,
      identity_provider: 'idp.example.org:8443',
    });
    expect(shown).not.toHaveProperty('redirect_host');
  });
});

describe('the calls of the last seven days', () => {
  it('counts the days from the one seven days before now to today, and none before', () => {
    const calls_by_day = { '2026-11-28': 1000, '2026-11-29': 100, '2026-12-01': 10, '2026-12-06': 1 };
    expect(callsInLastWeek({ calls_by_day }, NOW)).toBe(111);
    expect(callsInLastWeek({ calls_by_day: { '2026-11-29': 5 } }, new Date('2026-12-06T23:59:59.999Z'))).toBe(
      5,
    );
    expect(callsInLastWeek({}, NOW)).toBe(0);
  });
});

describe('a key item read back', () => {
  it('gathers its days’ counts into calls_by_day and drops the attributes only the item has', () => {
    const item = {
      ...key,
      pk: 'KEY#k1',
      sk: 'KEY',
      gsi1pk: 'USER#alice',
      gsi1sk: 'x',
      gsi2pk: 'y',
      gsi2sk: 'z',
      ttl: 1,
      notified_7: true,
      notified_1: true,
      notified_expired: true,
      [dayCallsAttribute('2026-12-05')]: 3,
      [dayCallsAttribute('2026-12-06')]: 4,
    };
    expect(dayCallsAttribute('2026-12-06')).toBe('calls_on_2026-12-06');
    expect(fromKeyItem(item)).toEqual({ ...key, calls_by_day: { '2026-12-05': 3, '2026-12-06': 4 } });
  });

  it('has no calls_by_day when no day was counted', () => {
    expect(fromKeyItem({ ...key, pk: 'KEY#k1', sk: 'KEY' })).toEqual(key);
  });
});

describe('create’s rules for an app', () => {
  it('refuses access the person lacks in words about the app, naming each workspace', async () => {
    const { service, memberships } = memoryService();
    memberships.set('alice', 'w1', 'viewer');
    const refusal = await admitCredential(
      service,
      { userId: 'alice', workspaceIds: ['w1', 'w2'], scopes: ['svc.forms.write'] },
      { verified_domain: null },
    ).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).message).toBe('You lack the access this app would get in some workspaces.');
    expect((refusal as AppError).errors).toEqual([
      {
        input: 'workspaceIds',
        index: 0,
        message: 'role viewer in workspace w1 does not allow svc.forms.write',
      },
      { input: 'workspaceIds', index: 1, message: 'not a member of workspace w2' },
    ]);
  });
});

describe('a connected app', () => {
  it('cannot be rotated, and is told how to disconnect it', async () => {
    const { service, keys } = memoryService();
    await keys.insert(grantOf(), 10, []);
    const refusal = await rotateKey(service, 'alice', 'k1').catch((err: unknown) => err);
    expect(refusal).toMatchObject({
      code: 'not_rotatable',
      message:
        'A connected app rotates its own tokens and cannot be rotated; revoke it to disconnect the app.',
    });
  });

  it('is counted under the kind its kept access token tells: an IdP only for an enterprise grant', () => {
    const kept = { ...key } as VerifiedKey;
    const token = {
      digest: 'd',
      until: key.expires_at,
      client_id: client.id,
      resource: 'https://mcp.example.com/mcp',
    };
    expect(keptKind(kept)).toBe('api_key');
    expect(keptKind({ ...kept, token })).toBe('oauth_grant');
    expect(keptKind({ ...kept, token: { ...token, idp: 'https://idp.example.org' } })).toBe(
      'enterprise_grant',
    );
  });
});
