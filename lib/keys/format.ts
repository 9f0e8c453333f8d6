import { randomBytes, randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { CHECKSUM_CHARS, ID_CHARS, KEY_LENGTH, KEY_PATTERN, KEY_PREFIX, SECRET_CHARS } from './grammar.ts';

export { KEY_LENGTH, KEY_PATTERN, KEY_PREFIX, KEY_SCANNER_PATTERN } from './grammar.ts';

/**
 * Key grammar (contract §1):
 *   svc_mcp_v1_ <id: 22 base62> <secret: 43 base62> <checksum: 6 base62>
 * The id is the key's UUID (16 bytes), the secret 32 random bytes (256 bits), the checksum
 * CRC32 of every character before it. All parts are fixed width, left-padded with '0'.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_BYTES = 32;
const CHECKED_LENGTH = KEY_LENGTH - CHECKSUM_CHARS;

const MAX_UUID = (1n << 128n) - 1n;

function encodeBigInt(value: bigint, width: number): string {
  let out = '';
  let v = value;
  while (v > 0n) {
    out = ALPHABET[Number(v % 62n)] + out;
    v /= 62n;
  }
  return out.padStart(width, '0');
}

function encodeUint32(value: number): string {
  let out = '';
  let v = value >>> 0;
  for (let i = 0; i < CHECKSUM_CHARS; i++) {
    out = ALPHABET[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}

function decodeBigInt(text: string): bigint {
  let v = 0n;
  for (const ch of text) v = v * 62n + BigInt(ALPHABET.indexOf(ch));
  return v;
}

function uuidToBigInt(uuid: string): bigint {
  return BigInt(`0x${uuid.replaceAll('-', '')}`);
}

function bigIntToUuid(value: bigint): string {
  const hex = value.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function checksumOf(checked: string): string {
  return encodeUint32(crc32(checked));
}

export interface GeneratedKey {
  id: string;
  apiKey: string;
}

/** A key from its parts, with its checksum: `secret` is the 43-character base62 field. */
export function assembleKey(id: string, secret: string): string {
  const checked = KEY_PREFIX + encodeBigInt(uuidToBigInt(id), ID_CHARS) + secret;
  return checked + checksumOf(checked);
}

/** The 43-character secret field of a well-formed key. */
export const secretField = (apiKey: string): string =>
  apiKey.slice(KEY_PREFIX.length + ID_CHARS, KEY_PREFIX.length + ID_CHARS + SECRET_CHARS);

/** Mints a new key: a fresh UUID v4 id and 256 bits from the CSPRNG. */
export function generateKey(): GeneratedKey {
  const id = randomUUID();
  const secret = BigInt(`0x${randomBytes(SECRET_BYTES).toString('hex')}`);
  return { id, apiKey: assembleKey(id, encodeBigInt(secret, SECRET_CHARS)) };
}

export type ParsedKey = { ok: true; id: string; apiKey: string } | { ok: false };

const MALFORMED: ParsedKey = { ok: false };

/**
 * Checks the grammar and checksum without any I/O. Anything that does not parse is rejected
 * here, so garbage never costs a database read.
 */
export function parseKey(raw: unknown): ParsedKey {
  // Stryker disable next-line ConditionalExpression: equivalent for the length check, KEY_PATTERN is anchored and fixed-width (this also switches off the line's other conditions, killed by test/unit/format-edges.test.ts)
  if (typeof raw !== 'string' || raw.length !== KEY_LENGTH || !KEY_PATTERN.test(raw)) return MALFORMED;
  const checked = raw.slice(0, CHECKED_LENGTH);
  if (checksumOf(checked) !== raw.slice(CHECKED_LENGTH)) return MALFORMED;
  const idValue = decodeBigInt(raw.slice(KEY_PREFIX.length, KEY_PREFIX.length + ID_CHARS));
  if (idValue > MAX_UUID) return MALFORMED;
  return { ok: true, id: bigIntToUuid(idValue), apiKey: raw };
}

/** `svc_mcp_v1_…` plus the last 4 characters, which are checksum characters, never secret ones. */
export function keyHint(apiKey: string): string {
  return `${KEY_PREFIX}…${apiKey.slice(-4)}`;
}
