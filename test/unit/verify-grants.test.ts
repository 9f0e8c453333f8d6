import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Role } from '#lib/access/scopes';
import { assembleKey, generateGrantCredential, generateKey, keyHint, secretField } from '#lib/keys/format';
import type { KeyRecord, TokenDigest } from '#lib/keys/model';
import { digestKey, digestWithVersion, type PepperSource } from '#lib/keys/pepper';
import type { KeyUse } from '#lib/keys/verify';
import { createKeyVerifier } from '#lib/keys/verify';

/**
 * OAuth access tokens verified like keys (contract §15, lib/keys/verify.ts): a grant is a key
 * record whose tokens are stored as digests; the token's id part is the grant's id. Everything
 * here is in memory: the records, the memberships and the verification reads, counted.
 */
const RESOURCE = 'https://mcp.example.com/mcp';
const NOW = new Date('2026-11-26T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms).toISOString();

function world(options: { resource?: string; withReads?: boolean } = {}) {
  const pepperCalls: number[] = [];
  const peppers: PepperSource = {
    currentVersion: 3,
    pepper: async (version) => {
      pepperCalls.push(version);
      return Buffer.alloc(32, version);
    },
  };
  const records = new Map<string, KeyRecord>();
  const roles = new Map<string, Role>();
  const reads = { get: 0, warm: 0 };
  const uses: KeyUse[] = [];
  let clock = NOW;
  let recorded = true;
  const verify = createKeyVerifier({
    keys: {
      get: async (id) => {
        reads.get++;
        const record = records.get(id);
        return record && structuredClone(record);
      },
      recordUse: async () => recorded,
    },
    memberships: {
      rolesFor: async (_user, ids) =>
        new Map(ids.flatMap((id) => (roles.has(id) ? [[id, roles.get(id) as Role]] : []))),
    },
    ...(options.withReads !== false && {
      reads: {
        readMemberships: async (_user, ids) => ({
          roles: new Map(ids.flatMap((id) => (roles.has(id) ? [[id, roles.get(id) as Role]] : []))),
        }),
        readKeyAndMemberships: async (id, _user, ids) => {
          reads.warm++;
          const record = records.get(id);
          return {
            key: record && structuredClone(record),
            roles: new Map(ids.flatMap((w) => (roles.has(w) ? [[w, roles.get(w) as Role]] : []))),
          };
        },
      },
    }),
    ...(options.resource !== undefined && { resource: options.resource }),
    peppers,
    now: () => clock,
    onUse: (use) => uses.push(use),
  });
  const tokenDigest = async (token: string, until: string): Promise<TokenDigest> => ({
    digest: await digestWithVersion(peppers, token, 3),
    until,
  });
  const workspaceId = randomUUID();
  roles.set(workspaceId, 'editor');

  /** A grant with a current access token (an hour) and, if asked, the one a refresh replaced. */
  async function grant(init: { previous?: boolean; resource?: string } = {}) {
    const id = randomUUID();
    const token = generateGrantCredential('access_token', id);
    const previousToken = generateGrantCredential('access_token', id);
    const record: KeyRecord = {
      id,
      user_id: 'user-1',
      lineage_id: id,
      name: 'Claude',
      workspace_ids: [workspaceId],
      scopes: ['svc.forms.read'],
      digest: '',
      pepper_version: 3,
      key_hint: 'svc_mcp_at_v1_…',
      created_at: NOW.toISOString(),
      expires_at: at(90 * 86_400_000),
      last_used_at: NOW.toISOString(),
      kind: 'oauth_grant',
      grant: {
        client: { id: 'https://claude.ai/oauth/client.json', name: 'Claude', verified_domain: 'claude.ai' },
        redirect_uri: 'https://claude.ai/api/mcp/auth_callback',
        redirect_host: 'claude.ai',
        resource: init.resource ?? RESOURCE,
        access: await tokenDigest(token, at(3_600_000)),
        ...(init.previous && { previous_access: await tokenDigest(previousToken, at(60_000)) }),
      },
    };
    records.set(id, record);
    return { id, token, previousToken, record };
  }

  async function apiKey() {
    const { id, apiKey: key } = generateKey();
    const { digest, pepperVersion } = await digestKey(peppers, key);
    records.set(id, {
      id,
      user_id: 'user-1',
      lineage_id: id,
      name: 'k',
      workspace_ids: [workspaceId],
      scopes: ['svc.forms.read'],
      digest,
      pepper_version: pepperVersion,
      key_hint: keyHint(key),
      created_at: NOW.toISOString(),
      expires_at: at(86_400_000),
      last_used_at: NOW.toISOString(),
    });
    return { id, apiKey: key };
  }

  return {
    verify,
    records,
    reads,
    uses,
    pepperCalls,
    workspaceId,
    grant,
    apiKey,
    tokenDigest,
    setNow: (date: Date) => {
      clock = date;
    },
    recordAs: (wrote: boolean) => {
      recorded = wrote;
    },
  };
}

describe('an access token verified', () => {
  it('is valid as an OAuth credential: its client, its resource, the token’s own expiry', async () => {
    const w = world();
    const g = await w.grant();
    const expected = {
      outcome: 'valid',
      kind: 'oauth',
      user_id: 'user-1',
      key_id: g.id,
      client_id: 'https://claude.ai/oauth/client.json',
      resource: RESOURCE,
      expires_at: at(3_600_000),
      scopes: ['svc.forms.read'],
      workspaces: [{ id: w.workspaceId, role: 'editor', scopes: ['svc.forms.read'] }],
    };
    expect(await w.verify(g.token)).toEqual(expected);
    // Warm: the same answer, from one read of the key and the memberships together.
    expect(await w.verify(g.token)).toEqual(expected);
    expect(w.reads).toEqual({ get: 1, warm: 1 });
  });

  it('the one a refresh replaced is accepted until its own short expiry, and warm too', async () => {
    const w = world();
    const g = await w.grant({ previous: true });
    expect(await w.verify(g.previousToken)).toMatchObject({ outcome: 'valid', expires_at: at(60_000) });
    expect(await w.verify(g.previousToken)).toMatchObject({ outcome: 'valid', expires_at: at(60_000) });
    expect(w.reads).toEqual({ get: 1, warm: 1 });
  });

  it('is accepted while only the replaced token is left, current one dropped', async () => {
    const w = world();
    const g = await w.grant({ previous: true });
    expect((await w.verify(g.previousToken)).outcome).toBe('valid');
    const grant = g.record.grant as NonNullable<KeyRecord['grant']>;
    w.records.set(g.id, { ...g.record, grant: { ...grant, access: undefined } });
    expect(await w.verify(g.previousToken)).toMatchObject({ outcome: 'valid', expires_at: at(60_000) });
    expect(w.reads).toEqual({ get: 1, warm: 1 });
  });

  it('is expired from the very instant its expiry is reached, cold and warm', async () => {
    const w = world();
    const g = await w.grant();
    expect((await w.verify(g.token)).outcome).toBe('valid');
    w.setNow(new Date(at(3_600_000)));
    expect(await w.verify(g.token)).toEqual({ outcome: 'expired', key_id: g.id, expires_at: at(3_600_000) });
    const cold = world();
    const h = await cold.grant();
    cold.setNow(new Date(at(3_600_000)));
    expect(await cold.verify(h.token)).toEqual({
      outcome: 'expired',
      key_id: h.id,
      expires_at: at(3_600_000),
    });
    cold.setNow(new Date(at(3_599_999)));
    expect((await cold.verify(h.token)).outcome).toBe('valid');
  });

  it('follows the grant’s stored expiry of the token once warm (a refresh shortened it to its grace)', async () => {
    const w = world();
    const g = await w.grant();
    expect((await w.verify(g.token)).outcome).toBe('valid');
    const grant = g.record.grant as NonNullable<KeyRecord['grant']>;
    const access = grant.access as TokenDigest;
    w.records.set(g.id, {
      ...g.record,
      grant: { ...grant, access: undefined, previous_access: { ...access, until: at(30_000) } },
    });
    expect(await w.verify(g.token)).toMatchObject({ outcome: 'valid', expires_at: at(30_000) });
    w.setNow(new Date(at(30_000)));
    expect(await w.verify(g.token)).toMatchObject({ outcome: 'expired', expires_at: at(30_000) });
    expect(w.reads.get).toBe(1);
  });

  it('is refused on the very next call once the grant no longer holds it (replaced twice)', async () => {
    const w = world();
    const g = await w.grant();
    expect((await w.verify(g.token)).outcome).toBe('valid');
    const grant = g.record.grant as NonNullable<KeyRecord['grant']>;
    const other = generateGrantCredential('access_token', g.id);
    w.records.set(g.id, {
      ...g.record,
      grant: { ...grant, access: await w.tokenDigest(other, at(3_600_000)) },
    });
    expect(await w.verify(g.token)).toEqual({ outcome: 'not_found' });
    expect((await w.verify(other)).outcome).toBe('valid');
  });

  it('with a wrong secret for a grant’s id is not found, like any unknown credential', async () => {
    const w = world();
    const g = await w.grant();
    expect(await w.verify(generateGrantCredential('access_token', g.id))).toEqual({ outcome: 'not_found' });
  });

  it('carrying an API key’s id is not found, cold or with the key kept warm', async () => {
    const w = world();
    const key = await w.apiKey();
    expect(await w.verify(generateGrantCredential('access_token', key.id))).toEqual({ outcome: 'not_found' });
    expect((await w.verify(key.apiKey)).outcome).toBe('valid');
    expect(await w.verify(generateGrantCredential('access_token', key.id))).toEqual({ outcome: 'not_found' });
  });

  it('an API key carrying a kept grant’s id is not found', async () => {
    const w = world();
    const g = await w.grant();
    expect((await w.verify(g.token)).outcome).toBe('valid');
    const { apiKey: otherKey } = generateKey();
    expect(await w.verify(assembleKey(g.id, secretField(otherKey)))).toEqual({ outcome: 'not_found' });
  });

  it('costs one digest per token the grant holds, and one when it holds none (as an unknown id does)', async () => {
    const w = world();
    const withOne = await w.grant();
    const withTwo = await w.grant({ previous: true });
    const without = await w.grant();
    const grant = without.record.grant as NonNullable<KeyRecord['grant']>;
    w.records.set(without.id, { ...without.record, grant: { ...grant, access: undefined } });
    const key = await w.apiKey();
    const cost = async (token: string) => {
      w.pepperCalls.length = 0;
      expect(await w.verify(token)).toEqual({ outcome: 'not_found' });
      return w.pepperCalls.length;
    };
    expect(await cost(generateGrantCredential('access_token', withOne.id))).toBe(1);
    expect(await cost(generateGrantCredential('access_token', withTwo.id))).toBe(2);
    expect(await cost(generateGrantCredential('access_token', without.id))).toBe(1);
    expect(await cost(generateGrantCredential('access_token', key.id))).toBe(1);
  });
});

describe('the MCP server an access token was issued for', () => {
  it('is checked against the verifier’s resource, compared in canonical form', async () => {
    const w = world({ resource: 'https://MCP.example.com:443/mcp' });
    const mine = await w.grant();
    expect((await w.verify(mine.token)).outcome).toBe('valid');
    expect((await w.verify(mine.token)).outcome).toBe('valid');
    const theirs = await w.grant({ resource: 'https://other.example.com/mcp' });
    expect(await w.verify(theirs.token)).toEqual({ outcome: 'wrong_resource', key_id: theirs.id });
  });

  it('is any of the deployment’s servers for a verifier without a resource', async () => {
    const w = world();
    const theirs = await w.grant({ resource: 'https://other.example.com/mcp' });
    expect(await w.verify(theirs.token)).toMatchObject({
      outcome: 'valid',
      resource: 'https://other.example.com/mcp',
    });
  });
});

describe('the other OAuth credentials presented as a bearer credential', () => {
  it('a refresh token is refused as such, an authorization code as malformed, before any read', async () => {
    const w = world();
    const g = await w.grant();
    expect(await w.verify(generateGrantCredential('refresh_token', g.id))).toEqual({
      outcome: 'refresh_token',
    });
    expect(await w.verify(generateGrantCredential('authorization_code', g.id))).toEqual({
      outcome: 'malformed',
    });
    expect(await w.verify(`${g.token.slice(0, -1)}${g.token.endsWith('A') ? 'B' : 'A'}`)).toEqual({
      outcome: 'malformed',
    });
    expect(w.reads).toEqual({ get: 0, warm: 0 });
  });
});

describe('the last-use hook', () => {
  it('hears already_recorded when another verification recorded the use within the minute', async () => {
    const w = world();
    const key = await w.apiKey();
    w.setNow(new Date(at(120_000)));
    w.recordAs(false);
    expect((await w.verify(key.apiKey)).outcome).toBe('valid');
    await new Promise((resolve) => setImmediate(resolve));
    expect(w.uses).toEqual([{ key_id: key.id, at: at(120_000), outcome: 'already_recorded' }]);
  });
});

describe('a kept key whose stored item lost its scopes', () => {
  it('is forgotten: once the item is fixed, it is verified from scratch again', async () => {
    const w = world();
    const key = await w.apiKey();
    expect((await w.verify(key.apiKey)).outcome).toBe('valid');
    const stored = w.records.get(key.id) as KeyRecord;
    const { scopes: _lost, ...withoutScopes } = stored;
    w.records.set(key.id, withoutScopes as KeyRecord);
    await expect(w.verify(key.apiKey)).rejects.toThrow();
    w.records.set(key.id, stored);
    const before = w.reads.get;
    expect((await w.verify(key.apiKey)).outcome).toBe('valid');
    expect(w.reads.get).toBe(before + 1);
  });
});

describe('a kept key whose stored scopes grew', () => {
  it('is granted the added scope on the very next call, not what it kept', async () => {
    const w = world();
    const key = await w.apiKey();
    expect(await w.verify(key.apiKey)).toMatchObject({ outcome: 'valid', scopes: ['svc.forms.read'] });
    const stored = w.records.get(key.id) as KeyRecord;
    w.records.set(key.id, { ...stored, scopes: ['svc.forms.read', 'svc.forms.write'] });
    const result = await w.verify(key.apiKey);
    expect(result.outcome).toBe('valid');
    expect(result.outcome === 'valid' && [...result.scopes].sort()).toEqual([
      'svc.forms.read',
      'svc.forms.write',
    ]);
  });
});
