/**
 * Redaction for anything that may reach a log. No log line may contain a key, a digest or a
 * user JWT, whatever the log level or settings (contract §5).
 */

const REDACTED = '[redacted]';
/** Header and field names whose values are credentials. */
const CREDENTIAL_NAMES = new Set([
  'authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'identitysource',
  'authorizationtoken',
  'github-public-key-signature',
]);
/** Bodies carry keys (leak reports, secret-scanning matches) and are never logged. */
// Stryker disable next-line ArrayDeclaration: module-level value, read at load, so Stryker credits only lazy importers; test/unit/redact.test.ts fails when it is mutated by hand
const BODY_NAMES = new Set(['body']);
// Stryker disable next-line Regex: module-level value, read at load, so Stryker credits only lazy importers; test/unit/redact.test.ts fails when it is mutated by hand
const KEY_LIKE = /svc_mcp_v1_[0-9A-Za-z]+/g;
// Stryker disable next-line Regex: module-level value, read at load, so Stryker credits only lazy importers; test/unit/redact.test.ts fails when it is mutated by hand
const JWT_LIKE = /eyJ[\w-]*\.[\w-]+\.[\w-]*/g;

/** Masks key- and JWT-shaped substrings of any string. */
export const scrub = (text: string): string =>
  text.replace(KEY_LIKE, `svc_mcp_v1_${REDACTED}`).replace(JWT_LIKE, REDACTED);

/** A deep copy of a Lambda event safe to log: credentials, cookies and bodies removed. */
// Stryker disable next-line StringLiteral: any name that is no credential's behaves as the empty one
export function redactEvent(value: unknown, name = ''): unknown {
  const lower = name.toLowerCase();
  // Stryker disable next-line ConditionalExpression: undefined falls through every check to the same `return value`
  if (value === null || value === undefined) return value;
  if (CREDENTIAL_NAMES.has(lower) || BODY_NAMES.has(lower) || lower === 'cookies') return REDACTED;
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((v) => redactEvent(v, name));
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactEvent(v, k)]));
  }
  return value;
}

/**
 * What to log of an error: its name, message and stack, scrubbed, and no `cause` or SDK fields
 * (a cancelled transaction's reasons hold stored items, digests included).
 */
export function describeError(err: unknown): Record<string, string> {
  if (!(err instanceof Error)) return { name: typeof err };
  return {
    name: err.name,
    message: scrub(err.message),
    ...(err.stack && { stack: scrub(err.stack) }),
  };
}
