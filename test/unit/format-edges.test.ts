import { describe, expect, it } from 'vitest';
import { assembleKey, generateKey, parseKey, secretField } from '#lib/keys/format';

/** The edges of the key grammar (contract §1) that parsing must get exactly right. */
describe('parsing a key at the edges of its grammar', () => {
  it('the highest id, ffffffff-ffff-ffff-ffff-ffffffffffff, is a well-formed key', () => {
    const id = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
    const apiKey = assembleKey(id, secretField(generateKey().apiKey));
    expect(parseKey(apiKey)).toEqual({ ok: true, id, apiKey });
  });

  it('anything but a string is malformed, even a value that prints as a valid key', () => {
    const { apiKey } = generateKey();
    for (const raw of [{ toString: () => apiKey }, [apiKey], new String(apiKey)]) {
      expect(parseKey(raw)).toEqual({ ok: false });
    }
  });
});
