import { describe, expect, it } from 'vitest';
import { Lru } from '#lib/keys/lru';
import { type KeyRecord, toMetadata } from '#lib/keys/model';
import { useThreshold } from '#lib/keys/rules';
import { MEMBERSHIPS_PER_READ_UNIT, membershipRead, queryHint } from '#lib/store/membership-reads';

/** Small rules of the key domain: how memberships are read, when a use is stale, what a key shows. */
describe('reading a key’s memberships', () => {
  it('reads by key until a query is known to be cheaper, from three workspaces a bounded query', () => {
    expect(membershipRead(1, undefined)).toEqual({ kind: 'batch' });
    expect(membershipRead(2, undefined)).toEqual({ kind: 'batch' });
    expect(membershipRead(3, undefined)).toEqual({ kind: 'query', maxItems: 3 * MEMBERSHIPS_PER_READ_UNIT });
    expect(MEMBERSHIPS_PER_READ_UNIT).toBe(40);
  });

  it('once a query’s cost is learned, takes the query only when it costs fewer units than the keys', () => {
    expect(membershipRead(5, queryHint(4, false))).toEqual({ kind: 'query', maxItems: 200 });
    expect(membershipRead(5, queryHint(5, false))).toEqual({ kind: 'batch' });
    expect(membershipRead(5, queryHint(6, false))).toEqual({ kind: 'batch' });
    expect(membershipRead(2, queryHint(1, false))).toEqual({ kind: 'query', maxItems: 80 });
    // A query that ran over its bound is never taken again for that key.
    expect(membershipRead(50, queryHint(3, true))).toEqual({ kind: 'batch' });
  });
});

describe('the last-use interval', () => {
  it('counts a use as stale once it is a minute old', () => {
    expect(useThreshold(new Date('2026-11-23T10:01:00.000Z'))).toBe('2026-11-23T10:00:00.000Z');
  });
});

describe('the metadata of a key', () => {
  const record: KeyRecord = {
    id: 'k2',
    user_id: 'alice',
    lineage_id: 'k1',
    name: 'laptop',
    workspace_ids: ['w1'],
    scopes: ['svc.forms.read'],
    digest: 'ZGlnZXN0',
    pepper_version: 1,
    key_hint: 'svc_mcp_v1_…abcd',
    created_at: '2026-11-01T00:00:00.000Z',
    expires_at: '2026-12-01T00:00:00.000Z',
  };
  const now = new Date('2026-11-10T00:00:00.000Z');

  it('shows what happened to the key, and null or an empty list for what did not', () => {
    expect(toMetadata(record, now)).toMatchObject({
      last_used_at: null,
      revoked_at: null,
      rotated_from: null,
      replaced_by: null,
      removed_workspace_ids: [],
    });
    const lived = {
      ...record,
      last_used_at: '2026-11-09T00:00:00.000Z',
      revoked_at: '2026-11-09T12:00:00.000Z',
      rotated_from: 'k1',
      replaced_by: 'k3',
      removed_workspace_ids: ['w0'],
    };
    expect(toMetadata(lived, now)).toMatchObject({
      status: 'revoked',
      last_used_at: '2026-11-09T00:00:00.000Z',
      revoked_at: '2026-11-09T12:00:00.000Z',
      rotated_from: 'k1',
      replaced_by: 'k3',
      removed_workspace_ids: ['w0'],
    });
    expect(JSON.stringify(toMetadata(lived, now))).not.toContain(record.digest);
  });
});

describe('the LRU', () => {
  it('works with a capacity of one', () => {
    const lru = new Lru<string, number>(1);
    lru.set('a', 1);
    lru.set('b', 2);
    expect([lru.has('a'), lru.get('b'), lru.size]).toEqual([false, 2, 1]);
  });

  it('does not remember a key it was only asked about', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    expect(lru.get('missing')).toBeUndefined();
    expect([lru.has('missing'), lru.size]).toEqual([false, 1]);
  });

  it('counts setting a key again as a use', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('a', 3);
    lru.set('c', 4);
    expect([lru.has('a'), lru.has('b'), lru.get('a')]).toEqual([true, false, 3]);
  });
});
