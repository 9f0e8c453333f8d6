import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  assembleKey,
  derivedGrantCredential,
  GRANT_CREDENTIAL_PREFIXES,
  type GrantCredentialKind,
  generateGrantCredential,
  generateKey,
  parseGrantCredential,
  parseKey,
  secretField,
} from '#lib/keys/format';

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

/** `checked` followed by its checksum: CRC-32 in six base62 characters (contract §1). */
function withChecksum(checked: string): string {
  let v = crc32(checked);
  let sum = '';
  for (let i = 0; i < 6; i++) {
    sum = ALPHABET[v % 62] + sum;
    v = Math.floor(v / 62);
  }
  return `${checked}${sum}`;
}
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('parsing an OAuth credential at the edges of its grammar', () => {
  const id = '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61';

  it.each(Object.entries(GRANT_CREDENTIAL_PREFIXES))(
    'a %s carries its kind and its grant’s id',
    (kind, prefix) => {
      const token = generateGrantCredential(kind as GrantCredentialKind, id);
      expect(token.startsWith(prefix)).toBe(true);
      expect(parseGrantCredential(token)).toEqual({ ok: true, kind, id, token });
    },
  );

  it('the highest id is well-formed; an id field above 2^128 is not, even with a valid checksum', () => {
    const highest = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
    const token = generateGrantCredential('access_token', highest);
    expect(parseGrantCredential(token)).toMatchObject({ ok: true, id: highest });
    const prefix = GRANT_CREDENTIAL_PREFIXES.access_token;
    const above = withChecksum(`${prefix}${'z'.repeat(22)}${token.slice(prefix.length + 22, -6)}`);
    expect(above).toHaveLength(token.length);
    expect(parseGrantCredential(above)).toEqual({ ok: false });
  });

  it('a character outside the alphabet is malformed, even under a valid checksum', () => {
    const token = generateGrantCredential('access_token', id);
    const bad = withChecksum(`${token.slice(0, 40)}_${token.slice(41, -6)}`);
    expect(bad).toHaveLength(token.length);
    expect(parseGrantCredential(bad)).toEqual({ ok: false });
  });

  it('a wrong checksum, a wrong length, another prefix or no string at all is malformed', () => {
    const token = generateGrantCredential('refresh_token', id);
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    expect(parseGrantCredential(`${token.slice(0, -1)}${last}`)).toEqual({ ok: false });
    expect(parseGrantCredential(token.slice(0, -1))).toEqual({ ok: false });
    expect(parseGrantCredential(`${token}A`)).toEqual({ ok: false });
    expect(parseGrantCredential(generateKey().apiKey)).toEqual({ ok: false });
    expect(parseGrantCredential(new String(token))).toEqual({ ok: false });
  });

  it('a derived credential is the seed’s first 256 bits: the same seed, the same credential', () => {
    const seed = Buffer.alloc(64, 0xab);
    const derived = derivedGrantCredential('authorization_code', id, seed);
    expect(parseGrantCredential(derived)).toEqual({
      ok: true,
      kind: 'authorization_code',
      id,
      token: derived,
    });
    // Only the first 32 bytes count.
    expect(
      derivedGrantCredential(
        'authorization_code',
        id,
        Buffer.concat([seed.subarray(0, 32), Buffer.alloc(32)]),
      ),
    ).toBe(derived);
    expect(derivedGrantCredential('authorization_code', id, Buffer.alloc(64, 0xac))).not.toBe(derived);
    // The secret field is the seed read as one hexadecimal number, in base62.
    let value = BigInt(`0x${'01'.repeat(32)}`);
    let secret = '';
    for (let i = 0; i < 43; i++) {
      secret = ALPHABET[Number(value % 62n)] + secret;
      value /= 62n;
    }
    expect(
      secretField(
        derivedGrantCredential('access_token', id, Buffer.alloc(32, 1)).replace(
          'svc_mcp_at_v1_',
          'svc_mcp_v1_',
        ),
      ),
    ).toBe(secret);
  });
});
