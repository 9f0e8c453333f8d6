import { JWT_BEARER_GRANT } from './metadata.ts';

/**
 * The grant and response types a client may register (RFC 7591 §2, decision 89): the
 * authorization code flow's, and the ID-JAG's jwt-bearer grant where the metadata advertises it.
 * `validateRegistration` (clients.ts) asks these with the metadata's `grant_types_supported`.
 */

/**
 * The grant types of the authorization code flow: what a client that names none registers, and all
 * a client may name where no identity provider is trusted.
 */
export const CODE_FLOW_GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token'];
/** The response type of the code flow, the only one there is here. */
export const CODE_RESPONSE_TYPES: readonly string[] = ['code'];
/** The grant types that issue tokens of their own; a refresh token only renews what the code flow gave. */
const ISSUING_GRANT_TYPES: readonly string[] = ['authorization_code', JWT_BEARER_GRANT];

export const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** `"a"`, `"a" and "b"`, `"a", "b" and "c"` (or `or`). */
function quotedList(values: readonly string[], conjunction = 'and'): string {
  const quoted = values.map((value) => JSON.stringify(value));
  return quoted.length > 1
    ? `${quoted.slice(0, -1).join(', ')} ${conjunction} ${quoted.at(-1)}`
    : quoted.join('');
}

/** Why a list of types is refused: not strings, or one of them not `allowed`. */
function typesProblem(
  field: 'grant_types' | 'response_types',
  value: unknown,
  allowed: readonly string[],
): string | undefined {
  if (value === undefined) return undefined;
  if (!isStringArray(value)) return `${field} must be an array of strings.`;
  const other = value.find((type) => !allowed.includes(type));
  if (other !== undefined)
    return `${field} may only contain ${quotedList(allowed)}; ${JSON.stringify(other.slice(0, 50))} is not supported.`;
  return undefined;
}

/**
 * Why the grant types a client listed are refused, `supported` being the metadata's: one of them
 * must issue tokens (the code flow, or the ID-JAG's jwt-bearer grant where it is offered).
 */
export function grantTypesProblem(value: unknown, supported: readonly string[]): string | undefined {
  const problem = typesProblem('grant_types', value, supported);
  if (problem || value === undefined) return problem;
  const issuing = ISSUING_GRANT_TYPES.filter((type) => supported.includes(type));
  if (!(value as string[]).some((type) => issuing.includes(type)))
    return issuing.length > 1
      ? `grant_types must include ${quotedList(issuing, 'or')}: a refresh token only renews what the authorization code flow issued.`
      : 'grant_types must include "authorization_code": this server issues tokens through the authorization code flow only.';
  return undefined;
}

/**
 * Why the response types are refused: the code flow's client must list `code`, any other client
 * none (RFC 7591 §2.1: `code` goes with `authorization_code`).
 */
export function responseTypesProblem(value: unknown, codeFlow: boolean): string | undefined {
  const problem = typesProblem('response_types', value, CODE_RESPONSE_TYPES);
  if (problem || value === undefined) return problem;
  const listed = (value as string[]).includes('code');
  if (codeFlow && !listed)
    return 'response_types must include "code": this server issues tokens through the authorization code flow only.';
  if (!codeFlow && listed)
    return 'response_types must not include "code" without the "authorization_code" grant type.';
  return undefined;
}
