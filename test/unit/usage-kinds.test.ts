import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Role } from '#lib/access/scopes';
import { generateGrantCredential, generateKey, keyHint } from '#lib/keys/format';
import type { KeyRecord } from '#lib/keys/model';
import { digestKey, digestWithVersion, type PepperSource } from '#lib/keys/pepper';
import { createKeyVerifier } from '#lib/keys/verify';
import type { UsageDay } from '#lib/usage/model';
import { UsageRecorder } from '#lib/usage/recorder';

/**
 * The kind each verification is counted under (contract §18), allowed or refused, on the cold path
 * (the credential read by id) and the warm one (kept from an earlier verification): an enterprise
 * grant's refusals are `enterprise_grant`, as its allowed calls are, not `oauth_grant`.
 */
const NOW = new Date('2026-11-28T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms).toISOString();
const IDP = 'https://idp.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';

function world() {
  const peppers: PepperSource = { currentVersion: 1, pepper: async () => Buffer.alloc(32, 1) };
  const records = new Map<string, KeyRecord>();
  const roles = new Map<string, Role>();
  const written: UsageDay[] = [];
  const usage = new UsageRecorder({ instance: 'i-1', writer: { putDay: async (d) => void written.push(d) } });
  const rolesOf = (ids: readonly string[]) =>
    new Map(ids.flatMap((id) => (roles.has(id) ? [[id, roles.get(id) as Role] as const] : [])));
  const clock = { now: NOW };
  const verify = createKeyVerifier({
    keys: { get: async (id) => structuredClone(records.get(id)), recordUse: async () => true },
    memberships: { rolesFor: async (_user, ids) => rolesOf(ids) },
    reads: {
      readMemberships: async (_user, ids) => ({ roles: rolesOf(ids) }),
      readKeyAndMemberships: async (id, _user, ids) => ({
        key: structuredClone(records.get(id)),
        roles: rolesOf(ids),
      }),
    },
    resource: RESOURCE,
    peppers,
    now: () => clock.now,
    usageRecorder: usage,
  });
  const workspaceId = randomUUID();
  roles.set(workspaceId, 'editor');
  const base = (id: string) => ({
    id,
    user_id: 'ana',
    lineage_id: id,
    name: 'c',
    workspace_ids: [workspaceId],
    scopes: ['svc.forms.read' as const],
    pepper_version: 1,
    created_at: NOW.toISOString(),
    expires_at: at(86_400_000),
    last_used_at: NOW.toISOString(),
  });

  async function grant(kind: 'oauth_grant' | 'enterprise_grant', tokenUntil = at(3_600_000)) {
    const id = randomUUID();
    const token = generateGrantCredential('access_token', id);
    records.set(id, {
      ...base(id),
      digest: '',
      key_hint: 'svc_mcp_at_v1_…',
      kind,
      grant: {
        client: { id: 'https://app.example/c.json', name: 'App', verified_domain: 'app.example' },
        redirect_uri: kind === 'enterprise_grant' ? '' : 'https://app.example/cb',
        redirect_host: kind === 'enterprise_grant' ? '' : 'app.example',
        ...(kind === 'enterprise_grant' && { idp: IDP }),
        resource: RESOURCE,
        access: { digest: await digestWithVersion(peppers, token, 1), until: tokenUntil },
      },
    });
    return { id, token };
  }

  async function apiKey() {
    const { id, apiKey: key } = generateKey();
    const { digest } = await digestKey(peppers, key);
    records.set(id, { ...base(id), digest, key_hint: keyHint(key) });
    return { id, token: key };
  }

  const revoke = (id: string) => {
    (records.get(id) as KeyRecord).revoked_at = NOW.toISOString();
  };
  /** The kind and outcomes written for each credential. */
  const kinds = async () => {
    await usage.flushAll(NOW);
    return Object.fromEntries(
      written.map((d) => [d.credential_id, [d.kind, ...Object.keys(d.hours['12']?.refused ?? {})]]),
    );
  };
  return { verify, grant, apiKey, revoke, kinds, roles, workspaceId, clock };
}

describe('the kind a refusal is counted under', () => {
  it('an enterprise grant’s: revoked (cold and warm), its token expired, no access left', async () => {
    const w = world();
    const cold = await w.grant('enterprise_grant');
    w.revoke(cold.id);
    expect((await w.verify(cold.token)).outcome).toBe('revoked');

    const warm = await w.grant('enterprise_grant');
    expect((await w.verify(warm.token)).outcome).toBe('valid');
    w.revoke(warm.id);
    expect((await w.verify(warm.token)).outcome).toBe('revoked');

    const lapsed = await w.grant('enterprise_grant', at(-1));
    expect((await w.verify(lapsed.token)).outcome).toBe('expired');

    const cutOff = await w.grant('enterprise_grant');
    w.roles.delete(w.workspaceId);
    expect((await w.verify(cutOff.token)).outcome).toBe('no_access');

    expect(await w.kinds()).toEqual({
      [cold.id]: ['enterprise_grant', 'revoked'],
      [warm.id]: ['enterprise_grant', 'revoked'],
      [lapsed.id]: ['enterprise_grant', 'expired'],
      [cutOff.id]: ['enterprise_grant', 'no_access'],
    });
  });

  it('an OAuth grant’s and a key’s stay theirs, warm as cold', async () => {
    const w = world();
    const grant = await w.grant('oauth_grant');
    const key = await w.apiKey();
    expect((await w.verify(grant.token)).outcome).toBe('valid');
    expect((await w.verify(key.token)).outcome).toBe('valid');
    w.revoke(grant.id);
    w.revoke(key.id);
    expect((await w.verify(grant.token)).outcome).toBe('revoked');
    expect((await w.verify(key.token)).outcome).toBe('revoked');
    expect(await w.kinds()).toEqual({
      [grant.id]: ['oauth_grant', 'revoked'],
      [key.id]: ['api_key', 'revoked'],
    });
  });
});
