import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assembleKey, generateKey, keyHint, secretField } from '#lib/keys/format';
import type { KeyRecord } from '#lib/keys/model';
import { digestKey, type PepperSource } from '#lib/keys/pepper';
import { createKeyVerifier } from '#lib/keys/verify';

/**
 * The timing oracle: an unknown id must cost what a wrong secret costs. Both now derive the
 * pepper and compute one digest; timings are reported by `npm run bench:timing`, not asserted.
 */
function setup() {
  const calls: number[] = [];
  const pepperBytes = Buffer.alloc(32, 9);
  const peppers: PepperSource = {
    currentVersion: 2,
    pepper: async (version) => {
      calls.push(version);
      return pepperBytes;
    },
  };
  return { calls, peppers };
}

async function storedKey(peppers: PepperSource) {
  const { id, apiKey } = generateKey();
  const { digest, pepperVersion } = await digestKey(peppers, apiKey);
  const record: KeyRecord = {
    id,
    user_id: 'u',
    lineage_id: id,
    name: 'k',
    workspace_ids: [randomUUID()],
    scopes: ['svc.forms.read'],
    digest,
    pepper_version: pepperVersion,
    key_hint: keyHint(apiKey),
    created_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
  };
  return { id, apiKey, record };
}

describe('verifying an unknown id versus a wrong secret', () => {
  it('an unknown id is compared against a digest made with the current pepper, as a wrong secret is', async () => {
    const { calls, peppers } = setup();
    const stored = await storedKey(peppers);
    calls.length = 0;
    const verify = createKeyVerifier({
      keys: {
        get: async (id) => (id === stored.id ? stored.record : undefined),
        recordUse: async () => false,
      },
      memberships: { rolesFor: async () => new Map() },
      peppers,
      now: () => new Date(),
    });

    expect(await verify(generateKey().apiKey)).toEqual({ outcome: 'not_found' });
    const forUnknown = [...calls];
    calls.length = 0;
    expect(await verify(assembleKey(stored.id, secretField(generateKey().apiKey)))).toEqual({
      outcome: 'not_found',
    });
    const forWrongSecret = [...calls];

    expect(forUnknown).toEqual([2]);
    expect(forUnknown).toEqual(forWrongSecret);
  });

  it('a malformed key still costs no pepper and no digest', async () => {
    const { calls, peppers } = setup();
    const verify = createKeyVerifier({
      keys: {
        get: async () => {
          throw new Error('no read for a malformed key');
        },
        recordUse: async () => false,
      },
      memberships: { rolesFor: async () => new Map() },
      peppers,
      now: () => new Date(),
    });
    expect(await verify('svc_mcp_v1_nope')).toEqual({ outcome: 'malformed' });
    expect(calls).toEqual([]);
  });
});
