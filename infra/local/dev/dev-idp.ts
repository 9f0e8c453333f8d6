import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { ID_JAG_TYP } from '#lib/identity/id-jag';
import { SET_TYP, SIGNAL_EVENTS, type SignalEvent } from '#lib/identity/security-events';
import { IDENTITY_SIGNALS_PATH } from '#lib/routes/oauth/identity-signals';
import { jsonBody, send } from '../emulation/http.ts';
import { localSigningKey } from './issuer.ts';

/**
 * The development identity provider (contract §17, local mode only): a whole enterprise on one
 * machine. It issues ID tokens for any user, exchanges them (RFC 8693) for ID-JAGs under a policy
 * the developer sets, and publishes its keys, so that `CrossAppAccessProvider` of the MCP SDK
 * completes against `npm start`. Its interface is fixed so that other tools can drive it:
 *
 * - `GET  /_dev/idp/.well-known/openid-configuration` → `{ issuer, jwks_uri, token_endpoint }`, also at
 *   RFC 8414's path-inserted forms (`/.well-known/oauth-authorization-server/_dev/idp`, and the
 *   OpenID one), where a client discovering an issuer with a path looks first
 * - `GET  /_dev/idp/jwks`
 * - `GET  /_dev/idp/authorize`: a 400 saying where ID tokens come from (discovery requires the endpoint)
 * - `POST /_dev/idp/id-token { sub, email? }` → `{ id_token }`
 * - `POST /_dev/idp/token` (form: RFC 8693 token exchange) → the ID-JAG as `access_token`
 * - `PUT  /_dev/idp/policy { allow?: [{ client_id, scopes }] }` (no `allow`: every client, any scope)
 * - `POST /_dev/idp/signals { event, sub }`: signs a security event token (RISC `account-disabled`,
 *   `account-purged` or `account-enabled`, CAEP `session-revoked`) and pushes it to the service's
 *   receiver (RFC 8935), answering `{ status }` of the push (202 when accepted); a person disabled
 *   or purged gets no ID token or ID-JAG from it again until it pushes `account-enabled` for them
 */

export const DEV_IDP_PATH = '/_dev/idp';
/** RFC 8693's grant type and token types, and the ID-JAG's. */
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
/** Who its ID tokens are for: the apps of the organisation (the clients that exchange them). */
const ID_TOKEN_AUDIENCE = 'dev-idp-clients';
const ID_TOKEN_SECONDS = 3600;
const ID_JAG_SECONDS = 300;

const IdTokenRequest = z.strictObject({ sub: z.string().min(1).max(256), email: z.email().optional() });
const PolicyRequest = z.strictObject({
  allow: z
    .array(
      z.strictObject({
        client_id: z.string().min(1).max(2048),
        scopes: z.array(z.string().min(1).max(100)).max(20),
      }),
    )
    .max(100)
    .optional(),
});
type Policy = z.infer<typeof PolicyRequest>;
/** The events the service acts on, by name: each one's event type URI. */
const SIGNAL_TYPES = Object.fromEntries(
  Object.entries(SIGNAL_EVENTS).map(([uri, name]) => [name, uri]),
) as Record<SignalEvent, string>;
const SignalRequest = z.strictObject({
  event: z.enum(Object.values(SIGNAL_EVENTS)),
  sub: z.string().min(1).max(256),
});

const oauthError = (res: ServerResponse, error: string, description: string) =>
  send(res, 400, { error, error_description: description }, { 'cache-control': 'no-store' });

/** Where RFC 8414 and OpenID discovery look for an issuer with the path `/_dev/idp`. */
const PATH_INSERTED = [
  `/.well-known/oauth-authorization-server${DEV_IDP_PATH}`,
  `/.well-known/openid-configuration${DEV_IDP_PATH}`,
];

/** Whether the development IdP answers `path`. */
export const servedByDevIdp = (path: string) =>
  path.startsWith(`${DEV_IDP_PATH}/`) || PATH_INSERTED.includes(path);

export interface DevIdp {
  issuer: string;
  /** Answers a `/_dev/idp/…` request; false for a path it does not serve. */
  route(method: string, path: string, body: Buffer, res: ServerResponse): Promise<boolean>;
}

type SigningKey = Awaited<ReturnType<typeof localSigningKey>>;

class DevIdentityProvider implements DevIdp {
  private policy: Policy = {};
  /** People this IdP disabled or purged (by a signal it pushed): it issues them nothing until it enables them. */
  private readonly disabled = new Set<string>();
  private readonly keySet: ReturnType<typeof createLocalJWKSet>;

  constructor(
    readonly issuer: string,
    /** The service: the audience of the SETs, and where they are pushed. */
    private readonly service: string,
    private readonly key: SigningKey,
    private readonly now: () => Date,
  ) {
    this.keySet = createLocalJWKSet(key.jwks);
  }

  private sign(payload: Record<string, unknown>, typ: string, lifetime: number) {
    const seconds = Math.floor(this.now().getTime() / 1000);
    return new SignJWT(payload)
      .setProtectedHeader({ alg: this.key.alg, kid: this.key.kid, typ })
      .setIssuer(this.issuer)
      .setIssuedAt(seconds)
      .setExpirationTime(seconds + lifetime)
      .setJti(randomUUID())
      .sign(this.key.signingKey);
  }

  /** What RFC 8414 and OpenID Discovery require, so that any client's discovery reads it. */
  private configuration() {
    const issuer = this.issuer;
    return {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [this.key.alg],
      grant_types_supported: [TOKEN_EXCHANGE],
      token_endpoint_auth_methods_supported: ['none'],
    };
  }

  /** The person an ID token of this IdP names, or undefined. */
  private async subjectOf(idToken: string): Promise<string | undefined> {
    try {
      const { payload } = await jwtVerify(idToken, this.keySet, {
        issuer: this.issuer,
        audience: ID_TOKEN_AUDIENCE,
        currentDate: this.now(),
      });
      return payload.sub;
    } catch {
      return undefined;
    }
  }

  /** The scopes the policy lets `clientId` have of those asked; a sentence when it refuses. */
  private allowed(clientId: string, asked: string[]): string[] | { error: string; description: string } {
    if (!this.policy.allow) return asked;
    const rule = this.policy.allow.find((r) => r.client_id === clientId);
    if (!rule) return { error: 'access_denied', description: 'The IdP’s policy does not allow this client.' };
    if (asked.length === 0) return rule.scopes;
    const scopes = asked.filter((s) => rule.scopes.includes(s));
    return scopes.length > 0
      ? scopes
      : { error: 'invalid_scope', description: 'The IdP’s policy allows none of the scopes asked for.' };
  }

  /** RFC 8693: an ID token of this IdP for an ID-JAG, under the policy. */
  private async exchange(form: URLSearchParams, res: ServerResponse) {
    const field = (name: string) => form.get(name) ?? undefined;
    if (field('grant_type') !== TOKEN_EXCHANGE)
      return oauthError(res, 'unsupported_grant_type', `grant_type must be ${TOKEN_EXCHANGE}.`);
    if (field('requested_token_type') !== ID_JAG_TYPE)
      return oauthError(res, 'invalid_request', `requested_token_type must be ${ID_JAG_TYPE}.`);
    if (field('subject_token_type') !== ID_TOKEN_TYPE)
      return oauthError(res, 'invalid_request', `subject_token_type must be ${ID_TOKEN_TYPE}.`);
    const [clientId, audience, resource] = [field('client_id'), field('audience'), field('resource')];
    if (!clientId || !audience || !resource)
      return oauthError(res, 'invalid_request', 'client_id, audience and resource are required.');
    const subject = await this.subjectOf(field('subject_token') ?? '');
    if (!subject)
      return oauthError(res, 'invalid_grant', 'subject_token is not a valid ID token of this IdP.');
    const scopes = this.allowed(clientId, (field('scope') ?? '').split(' ').filter(Boolean));
    if (!Array.isArray(scopes)) return oauthError(res, scopes.error, scopes.description);
    const scope = scopes.join(' ');
    const jag = await this.sign(
      { sub: subject, aud: audience, client_id: clientId, resource, ...(scope && { scope }) },
      ID_JAG_TYP,
      ID_JAG_SECONDS,
    );
    const answer = {
      access_token: jag,
      issued_token_type: ID_JAG_TYPE,
      token_type: 'N_A',
      expires_in: ID_JAG_SECONDS,
      ...(scope && { scope }),
    };
    return send(res, 200, answer, { 'cache-control': 'no-store' });
  }

  private async idToken(body: Buffer, res: ServerResponse) {
    const input = IdTokenRequest.safeParse(jsonBody(body));
    if (!input.success) return send(res, 400, { message: 'sub (a user id) is required; email is optional' });
    const { sub, email } = input.data;
    if (this.disabled.has(sub)) return send(res, 403, { message: 'The IdP disabled this person.' });
    const idToken = await this.sign(
      { sub, aud: ID_TOKEN_AUDIENCE, ...(email && { email }) },
      'JWT',
      ID_TOKEN_SECONDS,
    );
    return send(res, 200, { id_token: idToken }, { 'cache-control': 'no-store' });
  }

  private setPolicy(body: Buffer, res: ServerResponse) {
    const input = PolicyRequest.safeParse(jsonBody(body));
    if (!input.success)
      return send(res, 400, { message: 'the policy is { allow?: [{ client_id, scopes }] }' });
    this.policy = input.data;
    return send(res, 200, this.policy);
  }

  /** Signs a SET about `sub` and pushes it to the service's receiver, as an IdP's transmitter does. */
  private async signal(body: Buffer, res: ServerResponse) {
    const input = SignalRequest.safeParse(jsonBody(body));
    if (!input.success)
      return send(res, 400, {
        message: `event (${Object.keys(SIGNAL_TYPES).join(', ')}) and sub are required`,
      });
    const { event, sub } = input.data;
    if (event === 'account-enabled') this.disabled.delete(sub);
    else if (event !== 'session-revoked') this.disabled.add(sub);
    const set = await new SignJWT({
      aud: this.service,
      sub_id: { format: 'iss_sub', iss: this.issuer, sub },
      events: { [SIGNAL_TYPES[event]]: {} },
    })
      .setProtectedHeader({ alg: this.key.alg, kid: this.key.kid, typ: SET_TYP })
      .setIssuer(this.issuer)
      .setIssuedAt(Math.floor(this.now().getTime() / 1000))
      .setJti(randomUUID())
      .sign(this.key.signingKey);
    const pushed = await fetch(`${this.service}${IDENTITY_SIGNALS_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/secevent+jwt', accept: 'application/json' },
      body: set,
    });
    const answer =
      pushed.status === 202 ? undefined : ((await pushed.json().catch(() => undefined)) as unknown);
    return send(res, 200, { status: pushed.status, ...(answer !== undefined && { answer }) });
  }

  async route(method: string, path: string, body: Buffer, res: ServerResponse): Promise<boolean> {
    const at = PATH_INSERTED.includes(path)
      ? '/.well-known/openid-configuration'
      : path.slice(DEV_IDP_PATH.length);
    const handle = `${method} ${at}`;
    if (handle === 'GET /.well-known/openid-configuration') send(res, 200, this.configuration());
    else if (handle === 'GET /jwks') send(res, 200, this.key.jwks);
    else if (handle === 'GET /authorize')
      // No interactive sign-in: a developer (or a test) asks for a person's ID token directly.
      send(res, 400, {
        error: 'unsupported_response_type',
        error_description: `The development IdP signs nobody in here: POST ${this.issuer}/id-token { "sub": "<user id>" } gives a person's ID token.`,
      });
    else if (handle === 'POST /id-token') await this.idToken(body, res);
    else if (handle === 'POST /token') await this.exchange(new URLSearchParams(body.toString('utf8')), res);
    else if (handle === 'PUT /policy') this.setPolicy(body, res);
    else if (handle === 'POST /signals') await this.signal(body, res);
    else return false;
    return true;
  }
}

/** The development IdP at `<base>/_dev/idp`, its key kept in the data directory. */
export async function devIdp(
  dataDir: string,
  base: string,
  now: () => Date = () => new Date(),
): Promise<DevIdp> {
  const key = await localSigningKey(join(dataDir, 'idp'), 'dev-idp');
  return new DevIdentityProvider(`${base}${DEV_IDP_PATH}`, base, key, now);
}
