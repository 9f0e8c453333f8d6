import { DAY_MS } from '#lib/limits';
import { REDIRECT_URI_MAX_LENGTH, redirectHost, redirectKind, redirectUriProblem } from './redirect-uris.ts';
import {
  CODE_FLOW_GRANT_TYPES,
  CODE_RESPONSE_TYPES,
  grantTypesProblem,
  isStringArray,
  responseTypesProblem,
} from './registration-types.ts';

/**
 * OAuth clients (contract §15, "Clients"): what the rest of the authorization server knows of a
 * client, whether it registered by Dynamic Client Registration (RFC 7591) or is identified by a
 * Client ID Metadata Document, and the rules for a registration body. Pure functions; the
 * register route parses the body and stores what `validateRegistration` accepted, and
 * `client-metadata.ts` fetches documents.
 */

/** A client as authorize, consent, token and the credential list see it. */
export interface OAuthClient {
  /** The DCR client id, or the metadata document's URL. */
  client_id: string;
  /** What the consent page and the credential list call the client. */
  client_name: string;
  /** The redirect URIs it registered; matched with `redirectUriMatches`. */
  redirect_uris: string[];
  /**
   * The metadata document URL's host (with its port when not the default): the domain that vouches
   * for the client. `null` for a DCR client, which the consent page shows as unverified.
   */
  verified_domain: string | null;
  registration: 'metadata_document' | 'dynamic';
}

/** Limits on clients (contract §15). */
export const OAUTH_CLIENT_LIMITS = {
  /** Largest accepted registration body (the register route checks it on the raw bytes). */
  maxBodyBytes: 8 * 1024,
  /** Redirect URIs per registration. */
  maxRedirectUris: 10,
  redirectUriMaxLength: REDIRECT_URI_MAX_LENGTH,
  clientNameMaxLength: 100,
  /** A `scope` registered with a client (space-separated scope tokens). */
  scopeMaxLength: 1000,
  /** A DCR registration that no grant ever used is removed after this long. */
  unusedRegistrationMs: 30 * DAY_MS,
} as const;

/** What `validateRegistration` accepted: the metadata to store, defaults applied. */
export interface RegistrationMetadata {
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  scope?: string;
  /** SEP-837: as asked, or else the kind every redirect URI has (absent when they are of both). */
  application_type?: ApplicationType;
}

/** OpenID Connect's client types (SEP-837): a `native` app on the person's device, or a `web` one. */
export type ApplicationType = 'native' | 'web';

/**
 * Why `uris` do not fit `type` (SEP-837), as RFC 7591's `invalid_redirect_uri` sentence; undefined
 * when they do or no type was given. A `native` client receives its code on the device (a loopback
 * `http` or a private-use URI), a `web` one at an `https` URI. A client that names no type is taken
 * at its redirect URIs' word, as before the parameter existed.
 */
export function applicationTypeProblem(
  type: ApplicationType | undefined,
  uris: readonly string[],
): string | undefined {
  if (type === undefined) return undefined;
  const other = uris.find((uri) => redirectKind(uri) !== type);
  if (other === undefined) return undefined;
  return type === 'native'
    ? 'application_type "native" takes loopback (http://127.0.0.1, http://[::1], http://localhost) or private-use redirect URIs only; an https redirect URI is a web client\'s.'
    : 'application_type "web" takes https redirect URIs only; a loopback or private-use redirect URI is a native client\'s.';
}

/** The type a client asked for, or else the kind all its redirect URIs share. */
function applicationTypeOf(
  asked: ApplicationType | undefined,
  uris: readonly string[],
): ApplicationType | undefined {
  if (asked) return asked;
  const kinds = new Set(uris.map(redirectKind));
  return kinds.size === 1 ? [...kinds][0] : undefined;
}

/** RFC 7591 §3.2.2: what the register route answers with, status 400, when a body is refused. */
export interface RegistrationRefusal {
  ok: false;
  error: 'invalid_redirect_uri' | 'invalid_client_metadata';
  error_description: string;
}

export type RegistrationResult = { ok: true; metadata: RegistrationMetadata } | RegistrationRefusal;

/**
 * Names are shown to people: no control (Cc) or format (Cf) characters (bidirectional overrides,
 * invisible characters) nor line and paragraph separators, as for a key's name (contract §5).
 */
const DISPLAYABLE = /^[^\p{Cc}\p{Cf}\u2028\u2029]*$/u;
/** RFC 6749 §3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`, separated by single spaces. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+(?: [\x21\x23-\x5b\x5d-\x7e]+)*$/;

const refuse = (error: RegistrationRefusal['error'], error_description: string): RegistrationRefusal => ({
  ok: false,
  error,
  error_description,
});
const badMetadata = (description: string) => refuse('invalid_client_metadata', description);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Why `name` may not be a client's name, as a sentence; undefined when it may. `field` names where
 * it came from in the sentence.
 */
export function clientNameProblem(name: unknown, field = 'client_name'): string | undefined {
  if (typeof name !== 'string') return `${field} must be a string.`;
  if (name.trim().length === 0) return `${field} must not be empty.`;
  if (name.length > OAUTH_CLIENT_LIMITS.clientNameMaxLength)
    return `${field} must be at most ${OAUTH_CLIENT_LIMITS.clientNameMaxLength} characters long.`;
  if (!DISPLAYABLE.test(name)) return `${field} must not contain control or invisible formatting characters.`;
  return undefined;
}

/**
 * Why a list of redirect URIs may not be registered; undefined when it may. `limit` caps its
 * length (DCR's limit; a metadata document is capped by its size instead). With `echo: false` a
 * URI is named by its place in the list (`redirect_uris[1]`), not quoted: for a fetched document,
 * whose content a description must not repeat.
 */
export function redirectUrisProblem(
  uris: unknown,
  { limit = Number.POSITIVE_INFINITY, echo = true }: { limit?: number; echo?: boolean } = {},
): string | undefined {
  if (uris === undefined) return 'redirect_uris is required: list the URIs the client receives codes at.';
  if (!isStringArray(uris)) return 'redirect_uris must be an array of strings.';
  if (uris.length === 0) return 'redirect_uris must list at least one redirect URI.';
  if (uris.length > limit) return `redirect_uris may list at most ${limit} URIs.`;
  for (const [index, uri] of uris.entries()) {
    const problem = echo ? redirectUriProblem(uri) : redirectUriProblem(uri, `redirect_uris[${index}]`);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * What a client without redirect URIs must say instead: its name, which people see in their list
 * of apps (a redirect URI's host names the others).
 */
const UNNAMED =
  'client_name is required for a client without redirect URIs: it is the name people see in their list of apps.';

/**
 * Validates an RFC 7591 registration body (already parsed as JSON; the route checks its size),
 * `supported` being the grant types the metadata advertises (`grantTypesSupported`). Public
 * clients only: `token_endpoint_auth_method` absent or `none`, since the client proves itself with
 * PKCE, never a secret. Defaults: `grant_types` both `authorization_code` and `refresh_token`
 * (RFC 7591 §2 defaults to the first only, but every code here comes with a refresh token, and
 * §3.2.1 lets a server register other values than asked), `response_types` `["code"]`, and
 * `client_name` the first redirect URI's host. A client that does not use the authorization code
 * flow (the ID-JAG's jwt-bearer grant only, where an identity provider is trusted) may list no
 * redirect URI and then names itself, and registers no response type. Metadata this server does
 * not use (`logo_uri`, `contacts`…) is ignored, as RFC 7591 §2 allows; repeated redirect URIs are
 * kept once.
 */
export function validateRegistration(
  body: unknown,
  supported: readonly string[] = CODE_FLOW_GRANT_TYPES,
): RegistrationResult {
  if (!isRecord(body)) return badMetadata('The registration body must be a JSON object.');

  const method = body.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    return badMetadata(
      `token_endpoint_auth_method must be "none" or left out: this server registers public clients only, ` +
        `which prove themselves with PKCE instead of a client secret${typeof method === 'string' ? ` (${JSON.stringify(method.slice(0, 50))} was asked for)` : ''}.`,
    );

  const grantProblem = grantTypesProblem(body.grant_types, supported);
  if (grantProblem) return badMetadata(grantProblem);
  const grantTypes = isStringArray(body.grant_types)
    ? [...new Set(body.grant_types)]
    : [...CODE_FLOW_GRANT_TYPES];
  const codeFlow = grantTypes.includes('authorization_code');

  const uris = !codeFlow && body.redirect_uris === undefined ? [] : body.redirect_uris;
  const noRedirects = !codeFlow && Array.isArray(uris) && uris.length === 0;
  const urisProblem = noRedirects
    ? undefined
    : redirectUrisProblem(uris, { limit: OAUTH_CLIENT_LIMITS.maxRedirectUris });
  if (urisProblem) return refuse('invalid_redirect_uri', urisProblem);
  const redirectUris = [...new Set(uris as string[])];

  const applicationType = body.application_type;
  if (applicationType !== undefined && applicationType !== 'native' && applicationType !== 'web')
    return badMetadata('application_type must be "native" or "web" (SEP-837).');
  const kindProblem = applicationTypeProblem(applicationType, redirectUris);
  if (kindProblem) return refuse('invalid_redirect_uri', kindProblem);

  const responseProblem = responseTypesProblem(body.response_types, codeFlow);
  if (responseProblem) return badMetadata(responseProblem);

  const name = body.client_name;
  const nameProblem = name === undefined ? (noRedirects ? UNNAMED : undefined) : clientNameProblem(name);
  if (nameProblem) return badMetadata(nameProblem);

  const scope = body.scope;
  if (scope !== undefined && (typeof scope !== 'string' || !SCOPE.test(scope)))
    return badMetadata('scope must be a string of scope names separated by single spaces.');
  if (typeof scope === 'string' && scope.length > OAUTH_CLIENT_LIMITS.scopeMaxLength)
    return badMetadata(`scope must be at most ${OAUTH_CLIENT_LIMITS.scopeMaxLength} characters long.`);

  return {
    ok: true,
    metadata: {
      client_name: typeof name === 'string' ? name.trim() : redirectHost(redirectUris[0] as string),
      redirect_uris: redirectUris,
      grant_types: grantTypes,
      response_types: codeFlow ? [...CODE_RESPONSE_TYPES] : [],
      token_endpoint_auth_method: 'none',
      ...(typeof scope === 'string' ? { scope } : {}),
      ...(applicationTypeOf(applicationType, redirectUris) && {
        application_type: applicationTypeOf(applicationType, redirectUris),
      }),
    },
  };
}

/**
 * Whether `clientId` names a Client ID Metadata Document rather than a DCR registration: an
 * `https` URL with a path other than `/`, written in its canonical form (so it has no dot segments,
 * no default port and a lower-case host, and the string compared with the document's `client_id`
 * is the URL fetched), without fragment or user information. With `allowLoopbackHttp` (local mode
 * only), `http://127.0.0.1[:port]/path` too. Whether its host may be fetched is the fetcher's
 * rule, so that a refused one is told why rather than "unknown client".
 */
export function isMetadataDocumentClientId(
  clientId: string,
  options: { allowLoopbackHttp?: boolean } = {},
): boolean {
  if (!URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  const scheme =
    url.protocol === 'https:' ||
    (options.allowLoopbackHttp === true && url.protocol === 'http:' && url.hostname === '127.0.0.1');
  return (
    scheme &&
    url.href === clientId &&
    url.pathname !== '/' &&
    url.hash === '' &&
    !clientId.includes('#') &&
    url.username === '' &&
    url.password === ''
  );
}
