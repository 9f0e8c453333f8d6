import { describe, expect, it } from 'vitest';
import {
  generateKey,
  KEY_LENGTH,
  KEY_PATTERN,
  KEY_PREFIX,
  KEY_SCANNER_PATTERN,
  keyHint,
  parseKey,
  secretField,
} from '#lib/keys/format';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('key format', () => {
  it('generates fixed-length keys matching the published grammar and carrying their id', () => {
    for (let i = 0; i < 200; i++) {
      const { id, apiKey } = generateKey();
      expect(apiKey).toHaveLength(KEY_LENGTH);
      expect(apiKey).toMatch(KEY_PATTERN);
      expect(apiKey.startsWith(KEY_PREFIX)).toBe(true);
      expect(parseKey(apiKey)).toEqual({ ok: true, id, apiKey });
    }
  });

  it('publishes a scanner pattern that finds a key inside text', () => {
    const { apiKey } = generateKey();
    const found = `export SVC_MCP_API_KEY=${apiKey} # laptop`.match(new RegExp(KEY_SCANNER_PATTERN, 'g'));
    expect(found).toEqual([apiKey]);
  });

  it('never generates the same key or id twice in 2,000 draws', () => {
    const keys = new Set<string>();
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const { id, apiKey } = generateKey();
      keys.add(apiKey);
      ids.add(id);
    }
    expect(keys.size).toBe(2000);
    expect(ids.size).toBe(2000);
  });

  it('rejects every single-character substitution through the checksum', () => {
    const { apiKey } = generateKey();
    let rejected = 0;
    for (let pos = KEY_PREFIX.length; pos < apiKey.length; pos++) {
      const original = apiKey[pos] as string;
      const replacement = ALPHABET[(ALPHABET.indexOf(original) + 1) % 62] as string;
      const mutated = apiKey.slice(0, pos) + replacement + apiKey.slice(pos + 1);
      if (!parseKey(mutated).ok) rejected++;
    }
    expect(rejected).toBe(apiKey.length - KEY_PREFIX.length);
  });

  it.each([
    ['truncated', (k: string) => k.slice(0, -1)],
    ['extended', (k: string) => `${k}A`],
    ['wrong prefix', (k: string) => `svc_mcp_v2_${k.slice(KEY_PREFIX.length)}`],
    ['lower-cased', (k: string) => k.toLowerCase()],
    ['with whitespace', (k: string) => ` ${k.slice(1)}`],
    ['non-alphabet character', (k: string) => `${k.slice(0, 20)}-${k.slice(21)}`],
  ])('rejects a %s key', (_label, mutate) => {
    const { apiKey } = generateKey();
    expect(parseKey(mutate(apiKey))).toEqual({ ok: false });
  });

  it.each([undefined, null, 42, {}, [], ''])('rejects a non-key value %j', (value) => {
    expect(parseKey(value)).toEqual({ ok: false });
  });

  it('rejects an id field above 2^128 even with a valid checksum', async () => {
    const { crc32 } = await import('node:zlib');
    const { apiKey } = generateKey();
    const checked = `${KEY_PREFIX}${'z'.repeat(22)}${apiKey.slice(33, 76)}`;
    let v = crc32(checked);
    let sum = '';
    for (let i = 0; i < 6; i++) {
      sum = ALPHABET[v % 62] + sum;
      v = Math.floor(v / 62);
    }
    expect(`${checked}${sum}`).toMatch(KEY_PATTERN);
    expect(parseKey(`${checked}${sum}`)).toEqual({ ok: false });
  });

  it('hints with the prefix and the last four characters only', () => {
    const { apiKey } = generateKey();
    const hint = keyHint(apiKey);
    expect(hint).toBe(`svc_mcp_v1_…${apiKey.slice(-4)}`);
    // What the hint shows starts after the secret field ends: it reveals checksum characters only.
    const visible = hint.slice('svc_mcp_v1_…'.length);
    const secret = secretField(apiKey);
    expect(apiKey.endsWith(visible)).toBe(true);
    expect(apiKey.length - visible.length).toBeGreaterThanOrEqual(apiKey.indexOf(secret) + secret.length);
  });
});
