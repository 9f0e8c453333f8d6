import { createHash, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assembleKey, generateKey, secretField } from '#lib/keys/format';
import { createKey, revokeKey } from '#lib/keys/lifecycle';
import type { KeyStore } from '#lib/keys/port';
import { handlePublicReport, revokeLeakedKeys } from '#lib/leaks/revoke-leaked';
import { LEAK_LIMITS } from '#lib/limits';
import { memoryPeppers, memoryService } from '#test/support/lifecycle';

/**
 * Leak verdicts against the storage port in memory: only a real, active key is revoked, once,
 * with its event; every other string is answered as not genuine. (test/integration/leaks.test.ts
 * runs the same against DynamoDB Local, through the routes.)
 */
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const GITHUB = { type: 'github_secret_scanning', id: null } as const;

afterEach(() => vi.useRealTimers());

async function world() {
  const w = memoryService();
  const workspaceId = randomUUID();
  w.memberships.set('alice', workspaceId, 'editor');
  const issue = () =>
    createKey(w.service, {
      userId: 'alice',
      name: 'k',
      workspaceIds: [workspaceId],
      scopes: ['svc.forms.read'],
    });
  const deps = { keys: w.keys, peppers: w.service.peppers, now: w.service.now };
  return { ...w, issue, deps };
}

describe('a leak report', () => {
  it('revokes a genuine active key, with key.leak_revoked naming the reporter and the source', async () => {
    const { issue, deps, keys, clock } = await world();
    const { apiKey, metadata } = await issue();
    const verdicts = await revokeLeakedKeys(
      deps,
      [{ token: apiKey, source: 'https://example.com/p' }],
      GITHUB,
    );
    expect(verdicts).toEqual([{ tokenHash: sha256(apiKey), genuine: true, revoked: true }]);
    expect(keys.keys.get(metadata.id)?.revoked_at).toBe(clock.now().toISOString());
    expect(keys.events.at(-1)).toMatchObject({
      type: 'key.leak_revoked',
      key_id: metadata.id,
      actor: GITHUB,
      details: { source: 'https://example.com/p' },
    });
  });

  it('answers strings that are not our keys as not genuine, and revokes nothing', async () => {
    const { issue, deps, keys } = await world();
    const { apiKey, metadata } = await issue();
    const forged = assembleKey(metadata.id, secretField(generateKey().apiKey)); // its id, another secret
    const reports = ['hello', `${apiKey}x`, forged, generateKey().apiKey].map((token) => ({
      token,
      source: null,
    }));
    const verdicts = await revokeLeakedKeys(deps, reports, GITHUB);
    expect(verdicts).toEqual(
      reports.map((r) => ({ tokenHash: sha256(r.token), genuine: false, revoked: false })),
    );
    expect(keys.keys.get(metadata.id)?.revoked_at).toBeUndefined();
  });

  it('says a revoked key is genuine but revokes it no further', async () => {
    const { issue, deps, service, keys } = await world();
    const { apiKey, metadata } = await issue();
    await revokeKey(service, 'alice', metadata.id);
    const before = keys.events.length;
    const verdicts = await revokeLeakedKeys(deps, [{ token: apiKey, source: null }], GITHUB);
    expect(verdicts).toEqual([{ tokenHash: sha256(apiKey), genuine: true, revoked: false }]);
    expect(keys.events).toHaveLength(before);
  });

  it('says an expired key is genuine but does not revoke it', async () => {
    const { issue, deps, clock, keys } = await world();
    const { apiKey, metadata } = await issue();
    clock.set(new Date(Date.parse(metadata.expires_at) + 1));
    const verdicts = await revokeLeakedKeys(deps, [{ token: apiKey, source: null }], GITHUB);
    expect(verdicts).toEqual([{ tokenHash: sha256(apiKey), genuine: true, revoked: false }]);
    expect(keys.keys.get(metadata.id)?.revoked_at).toBeUndefined();
  });

  it('says a key revoked by a concurrent request meanwhile was not revoked by this report', async () => {
    const { issue, deps, keys } = await world();
    const { apiKey } = await issue();
    const racing: Pick<KeyStore, 'getMany' | 'revoke'> = {
      getMany: (ids) => keys.getMany(ids),
      revoke: async (record, now, events) => {
        await keys.revoke(record, now, []);
        return keys.revoke(record, now, events);
      },
    };
    const verdicts = await revokeLeakedKeys(
      { ...deps, keys: racing },
      [{ token: apiKey, source: null }],
      GITHUB,
    );
    expect(verdicts).toEqual([{ tokenHash: sha256(apiKey), genuine: true, revoked: false }]);
  });

  it('recognises a key digested under an earlier pepper version', async () => {
    const { issue, deps } = await world();
    const { apiKey } = await issue();
    // New digests now use version 2; this key's digest is of version 1.
    const rotated = { ...deps, peppers: memoryPeppers(2) };
    const [verdict] = await revokeLeakedKeys(rotated, [{ token: apiKey, source: null }], GITHUB);
    expect(verdict).toMatchObject({ genuine: true, revoked: true });
  });

  it('revokes a key reported twice once, by its first report, reading all keys at once', async () => {
    const { issue, deps, keys } = await world();
    const { apiKey } = await issue();
    keys.calls.length = 0;
    const verdicts = await revokeLeakedKeys(
      deps,
      [
        { token: apiKey, source: 'first' },
        { token: apiKey, source: 'second' },
      ],
      GITHUB,
    );
    expect(verdicts.map((v) => [v.genuine, v.revoked])).toEqual([
      [true, true],
      [true, false],
    ]);
    expect(keys.calls).toEqual(['getMany', 'revoke']);
    expect(keys.events.filter((e) => e.type === 'key.leak_revoked')).toHaveLength(1);
  });
});

describe('a public report', () => {
  it('is answered no sooner than the minimum answer time, however long the checks took', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    await vi.advanceTimersByTimeAsync(1000); // the process has been up a while
    const { issue, deps, keys } = await world();
    const { apiKey } = await issue();
    const slow: Pick<KeyStore, 'getMany' | 'revoke'> = {
      getMany: async (ids) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return keys.getMany(ids);
      },
      revoke: (...args) => keys.revoke(...args),
    };
    let answered = false;
    const answer = handlePublicReport({ ...deps, keys: slow }, [{ token: apiKey, source: null }]).then(
      (v) => {
        answered = true;
        return v;
      },
    );
    await vi.advanceTimersByTimeAsync(LEAK_LIMITS.minAnswerMs - 1);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(answered).toBe(true);
    expect(await answer).toEqual([{ tokenHash: sha256(apiKey), genuine: true, revoked: true }]);
    expect(keys.events.at(-1)?.actor).toEqual({ type: 'public_report', id: null });
  });
});
