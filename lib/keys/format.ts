import { randomBytes, randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  ACCESS_TOKEN_PREFIX,
  CHECKSUM_CHARS,
  ID_CHARS,
  KEY_LENGTH,
  KEY_PATTERN,
  KEY_PREFIX,
  REFRESH_TOKEN_PREFIX,
  SECRET_CHARS,
} from './grammar.ts';

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
export function assembleKey(id: string, secret: string, prefix: string = KEY_PREFIX): string {
  const checked = prefix + encodeBigInt(uuidToBigInt(id), ID_CHARS) + secret;
  return checked + checksumOf(checked);
}

/** The 43-character secret field of a well-formed key. */
export const secretField = (apiKey: string): string =>
  apiKey.slice(KEY_PREFIX.length + ID_CHARS, KEY_PREFIX.length + ID_CHARS + SECRET_CHARS);

const MALFORMED = { ok: false } as const;

const newSecret = () => encodeBigInt(BigInt(`0x${randomBytes(SECRET_BYTES).toString('hex')}`), SECRET_CHARS);

/** Mints a new key: a fresh UUID v4 id and 256 bits from the CSPRNG. */
export function generateKey(): GeneratedKey {
  const id = randomUUID();
  return { id, apiKey: assembleKey(id, newSecret()) };
}

/**
 * The OAuth credentials (contract §15): the key's body grammar on a grant's id, each kind with
 * its own prefix. The authorization code's prefix is never published: a code lives 60 seconds
 * and travels only in a redirect and the token request.
 */
export const GRANT_CREDENTIAL_PREFIXES = {
  access_token: ACCESS_TOKEN_PREFIX,
  refresh_token: REFRESH_TOKEN_PREFIX,
  authorization_code: 'svc_mcp_ac_v1_',
} as const;
export type GrantCredentialKind = keyof typeof GRANT_CREDENTIAL_PREFIXES;

/** Mints a new credential of `kind` for the grant `grantId`, with 256 fresh bits. */
export function generateGrantCredential(kind: GrantCredentialKind, grantId: string): string {
  return assembleKey(grantId, newSecret(), GRANT_CREDENTIAL_PREFIXES[kind]);
}

/**
 * A credential of `kind` whose secret is the first 256 bits of `seed` (an HMAC under the pepper)
 * rather than drawn: the same inputs give the same credential, so a repeated approval can answer
 * the same authorization code without the code ever being stored.
 */
export function derivedGrantCredential(kind: GrantCredentialKind, grantId: string, seed: Buffer): string {
  const secret = BigInt(`0x${seed.subarray(0, SECRET_BYTES).toString('hex')}`);
  return assembleKey(grantId, encodeBigInt(secret, SECRET_CHARS), GRANT_CREDENTIAL_PREFIXES[kind]);
}

export type ParsedGrantCredential =
  | { ok: true; kind: GrantCredentialKind; id: string; token: string }
  | { ok: false };

/** Checks an OAuth credential's grammar and checksum without any I/O, as `parseKey` does a key's. */
export function parseGrantCredential(raw: unknown): ParsedGrantCredential {
  if (typeof raw !== 'string') return MALFORMED;
  const kind = (Object.keys(GRANT_CREDENTIAL_PREFIXES) as GrantCredentialKind[]).find((k) =>
    raw.startsWith(GRANT_CREDENTIAL_PREFIXES[k]),
  );
  if (!kind) return MALFORMED;
  const parsed = parseBody(raw, GRANT_CREDENTIAL_PREFIXES[kind]);
  return parsed ? { ok: true, kind, id: parsed, token: raw } : MALFORMED;
}

const BODY = /^[0-9A-Za-z]{71}$/;

/** The id of a well-formed `prefix` + body with a valid checksum; undefined otherwise. */
function parseBody(raw: string, prefix: string): string | undefined {
  // Stryker disable next-line ConditionalExpression: equivalent, BODY below is anchored and fixed-width
  if (raw.length !== prefix.length + KEY_LENGTH - KEY_PREFIX.length) return undefined;
  if (!BODY.test(raw.slice(prefix.length))) return undefined;
  const checkedLength = raw.length - CHECKSUM_CHARS;
  if (checksumOf(raw.slice(0, checkedLength)) !== raw.slice(checkedLength)) return undefined;
  const idValue = decodeBigInt(raw.slice(prefix.length, prefix.length + ID_CHARS));
  return idValue > MAX_UUID ? undefined : bigIntToUuid(idValue);
}

/** `parseKey`'s answer: the key's id when its grammar and checksum hold, else `{ ok: false }`. */
export type ParsedKey = { ok: true; id: string; apiKey: string } | { ok: false };

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
