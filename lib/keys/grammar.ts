/**
 * The key grammar (contract §1) as constants, with no import at all: browser code (the typed
 * client) reads it from here; lib/keys/format.ts mints and parses keys with it.
 *   svc_mcp_v1_ <id: 22 base62> <secret: 43 base62> <checksum: 6 base62>
 */
export const KEY_PREFIX = 'svc_mcp_v1_';
/** The widths of the key's parts, in base62 characters. */
export const ID_CHARS = 22;
export const SECRET_CHARS = 43;
export const CHECKSUM_CHARS = 6;
/** Every key's length: the prefix and 71 base62 characters. */
export const KEY_LENGTH = KEY_PREFIX.length + ID_CHARS + SECRET_CHARS + CHECKSUM_CHARS;

/** The published grammar, anchored; secret scanners use the unanchored source with word boundaries. */
export const KEY_PATTERN = /^svc_mcp_v1_[0-9A-Za-z]{71}$/;
/** `KEY_PATTERN` for secret scanners: unanchored, with word boundaries (a regular expression's source). */
export const KEY_SCANNER_PATTERN = '\\bsvc_mcp_v1_[0-9A-Za-z]{71}\\b';

/**
 * OAuth tokens (contract §15) share the key's body grammar on the grant's id: an access token
 * (one hour) and a refresh token, told apart from a key and from each other by their prefix.
 */
export const ACCESS_TOKEN_PREFIX = 'svc_mcp_at_v1_';
export const REFRESH_TOKEN_PREFIX = 'svc_mcp_rt_v1_';
export const ACCESS_TOKEN_PATTERN = /^svc_mcp_at_v1_[0-9A-Za-z]{71}$/;
export const REFRESH_TOKEN_PATTERN = /^svc_mcp_rt_v1_[0-9A-Za-z]{71}$/;
/** Every published credential prefix for secret scanners: a key, an access token, a refresh token. */
export const CREDENTIAL_SCANNER_PATTERNS = [
  KEY_SCANNER_PATTERN,
  '\\bsvc_mcp_at_v1_[0-9A-Za-z]{71}\\b',
  '\\bsvc_mcp_rt_v1_[0-9A-Za-z]{71}\\b',
] as const;
