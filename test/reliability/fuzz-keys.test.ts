import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleKey, generateKey, secretField } from '#lib/keys/format';
import { createKey } from '#lib/keys/lifecycle';
import type { Runtime } from '#lib/runtime';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { scale } from '#test/support/soak';

/** Random and mutated keys against real stored keys: none may ever verify. */
const RUNS = scale(600, 10_000);
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
let tables: TestTables;
let rt: Runtime;
let keys: { apiKey: string; id: string }[];

beforeAll(async () => {
  tables = await createTestTables();
  rt = tables.runtime();
  const ws = randomUUID();
  await tables.setRole('owner', ws, 'owner');
  keys = [];
  for (let i = 0; i < 3; i++) {
    const k = await createKey(rt.service, {
      userId: 'owner',
      name: `k${i}`,
      workspaceIds: [ws],
      scopes: ['svc.forms.read'],
    });
    keys.push({ apiKey: k.apiKey, id: k.metadata.id });
  }
  for (const k of keys) expect((await rt.verify(k.apiKey)).outcome).toBe('valid');
});
afterAll(() => tables.drop());

const keyIndex = fc.integer({ min: 0, max: 2 });
function at(i: number): { apiKey: string; id: string } {
  const key = keys[i];
  if (!key) throw new Error(`no key ${i}`);
  return key;
}
const char = fc.constantFrom(...ALPHABET.split(''), '-', '_', ' ', 'é', '\u0000');
const mutation = fc.oneof(
  // one character changed anywhere
  fc.tuple(keyIndex, fc.nat(), char).map(([i, pos, c]) => {
    const k = at(i).apiKey;
    const p = pos % k.length;
    return k[p] === c ? null : k.slice(0, p) + c + k.slice(p + 1);
  }),
  // truncated or extended
  fc.tuple(keyIndex, fc.integer({ min: 1, max: 81 })).map(([i, n]) => at(i).apiKey.slice(0, n)),
  fc.tuple(keyIndex, fc.string({ minLength: 1, maxLength: 5 })).map(([i, tail]) => at(i).apiKey + tail),
  // another key's checksum on this key
  fc
    .tuple(keyIndex, keyIndex)
    .map(([a, b]) => (a === b ? null : at(a).apiKey.slice(0, -6) + at(b).apiKey.slice(-6))),
  // another key's id with this key's secret, checksum recomputed so it reaches the database
  fc
    .tuple(keyIndex, keyIndex)
    .map(([a, b]) => (a === b ? null : assembleKey(at(a).id, secretField(at(b).apiKey)))),
  // a real id with a random secret, checksum recomputed
  fc
    .tuple(
      keyIndex,
      fc.string({ unit: fc.constantFrom(...ALPHABET.split('')), minLength: 43, maxLength: 43 }),
    )
    .map(([i, secret]) => assembleKey(at(i).id, secret)),
  // entirely random
  fc
    .string({ unit: fc.constantFrom(...ALPHABET.split('')), minLength: 71, maxLength: 71 })
    .map((b) => `svc_mcp_v1_${b}`),
  fc.string(),
);

describe('key verification fuzzing', () => {
  it(`no random or mutated key verifies (${RUNS} cases)`, async () => {
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(mutation, async (candidate) => {
        if (candidate === null || keys.some((k) => k.apiKey === candidate)) return;
        const result = await rt.verify(candidate);
        outcomes.set(result.outcome, (outcomes.get(result.outcome) ?? 0) + 1);
        expect(result.outcome, candidate).not.toBe('valid');
      }),
      { numRuns: RUNS },
    );
    // Both kinds of rejection were exercised: offline (checksum) and after a read (digest).
    expect(outcomes.get('malformed') ?? 0).toBeGreaterThan(0);
    expect(outcomes.get('not_found') ?? 0).toBeGreaterThan(0);
  });

  it('a fresh key of the same format is unknown, not valid', async () => {
    expect((await rt.verify(generateKey().apiKey)).outcome).toBe('not_found');
  });
});
