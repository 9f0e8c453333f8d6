/**
 * The identity providers this deployment trusts (contract §17): whose ID-JAGs the token endpoint
 * exchanges and whose security event tokens end a person's credentials. An IdP is named by its
 * issuer; its signing keys are its JWKS, at `jwksUri` or else where its OpenID configuration says.
 * Read by every function's configuration, so validated here without a schema library.
 */
export interface IdentityProvider {
  /** The `iss` of its tokens: an https URL (loopback http in local mode only). */
  issuer: string;
  /** Where its JWKS is. @default the `jwks_uri` of `<issuer>/.well-known/openid-configuration` */
  jwksUri?: string | undefined;
  /** The claim that is this service's user id (the `sub` of the dashboard's JWT). @default `sub` */
  userClaim?: string | undefined;
}

/** At most this many trusted IdPs: each is a JWKS to fetch and keep. */
export const MAX_IDENTITY_PROVIDERS = 10;

const CLAIM = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;
const FIELDS = new Set(['issuer', 'jwksUri', 'userClaim']);

/** Why `value` may not be an IdP's URL; undefined when it may. */
function urlProblem(value: unknown, allowLoopbackHttp: boolean): string | undefined {
  const https = allowLoopbackHttp ? 'an https URL (or http://127.0.0.1 in local mode)' : 'an https URL';
  if (typeof value !== 'string' || value.length > 2048 || !URL.canParse(value)) return `must be ${https}`;
  const url = new URL(value);
  if (url.username || url.password || url.hash) return 'must have no user information or fragment';
  const loopback = allowLoopbackHttp && url.protocol === 'http:' && url.hostname === '127.0.0.1';
  return url.protocol === 'https:' || loopback ? undefined : `must be ${https}`;
}

/** Every problem of one entry, each naming its field. */
function entryProblems(entry: unknown, at: string, allowLoopbackHttp: boolean): string[] {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    return [`${at} must be an object { issuer, jwksUri?, userClaim? }`];
  const record = entry as Record<string, unknown>;
  const problems = Object.keys(record)
    .filter((name) => !FIELDS.has(name))
    .map((name) => `${at}.${name} is not a setting of an identity provider`);
  const issuer = urlProblem(record.issuer, allowLoopbackHttp);
  if (issuer) problems.push(`${at}.issuer ${issuer}`);
  const jwks = record.jwksUri === undefined ? undefined : urlProblem(record.jwksUri, allowLoopbackHttp);
  if (jwks) problems.push(`${at}.jwksUri ${jwks}`);
  if (
    record.userClaim !== undefined &&
    (typeof record.userClaim !== 'string' || !CLAIM.test(record.userClaim))
  )
    problems.push(`${at}.userClaim must be a claim name`);
  return problems;
}

/** Every problem of the setting's value (`identityProviders`); none when it is valid. */
export function identityProvidersProblems(
  value: unknown,
  options: { allowLoopbackHttp?: boolean } = {},
): string[] {
  if (!Array.isArray(value)) return ['must be a list of { issuer, jwksUri?, userClaim? }'];
  const problems = value.flatMap((entry, i) =>
    entryProblems(entry, `[${i}]`, options.allowLoopbackHttp === true),
  );
  if (value.length > MAX_IDENTITY_PROVIDERS)
    problems.push(`must list at most ${MAX_IDENTITY_PROVIDERS} identity providers`);
  const issuers = value.map((entry) => (entry as { issuer?: unknown } | null)?.issuer);
  if (new Set(issuers).size !== issuers.length) problems.push('must not list an issuer twice');
  return problems;
}

/**
 * Parses the setting from its JSON text (`IDENTITY_PROVIDERS`); throws a sentence naming every
 * problem, for a deployment to fail at cold start rather than trust the wrong keys.
 */
export function parseIdentityProviders(
  json: string,
  options: { allowLoopbackHttp?: boolean } = {},
): IdentityProvider[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error('IDENTITY_PROVIDERS must be JSON: a list of { issuer, jwksUri?, userClaim? }');
  }
  const problems = identityProvidersProblems(value, options);
  if (problems.length > 0) throw new Error(`IDENTITY_PROVIDERS ${problems.join('; ')}`);
  return (value as IdentityProvider[]).map(({ issuer, jwksUri, userClaim }) => ({
    issuer,
    ...(jwksUri !== undefined && { jwksUri }),
    ...(userClaim !== undefined && { userClaim }),
  }));
}
