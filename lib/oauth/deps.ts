import { SCOPES, type Scope } from '#lib/access/scopes';
import type { IdentityKeySets } from '#lib/identity/key-sets';
import type { KeyServiceDeps } from '#lib/keys/lifecycle';
import { canonicalResource, type GrantClient } from '#lib/keys/model';
import type { OAuthClient } from './clients.ts';
import type { OAuthSettings } from './model.ts';
import type { EnterpriseStore, MembershipLister, OAuthStore } from './port.ts';

/** Finds a client by its `client_id`: a metadata document's URL (fetched) or a registration. */
export type ClientResolver = (
  clientId: string,
) => Promise<{ ok: true; client: OAuthClient } | { ok: false; error_description: string }>;

/** What the authorization server's use cases need: the key service's ports and its own. */
export interface OAuthDeps extends KeyServiceDeps {
  store: OAuthStore;
  oauth: OAuthSettings;
  clients: ClientResolver;
  /** The ID-JAG exchange's ports (contract §17); absent when no identity provider is trusted. */
  enterprise?: EnterpriseDeps | undefined;
}

/** What exchanging ID-JAGs needs: the IdPs' keys, its writes, and every membership of a person. */
export interface EnterpriseDeps {
  keySets: IdentityKeySets;
  store: EnterpriseStore;
  memberships: MembershipLister;
}

const SCOPE_SET = new Set<string>(SCOPES);
/** What a client that names no scope is given (contract §15 "The flow" 1). */
export const DEFAULT_SCOPE: Scope = 'svc.forms.read';

/** `seconds` after `now`, as a timestamp. */
export const secondsAfter = (now: Date, seconds: number) =>
  new Date(now.getTime() + seconds * 1000).toISOString();

/** The earlier of two timestamps. */
// Stryker disable next-line EqualityOperator: equivalent, of two equal timestamps either is the earlier
export const earlier = (a: string, b: string) => (a < b ? a : b);

/** A client as a grant records it. */
export const grantClient = (client: OAuthClient): GrantClient => ({
  id: client.client_id,
  name: client.client_name,
  verified_domain: client.verified_domain,
});

/** Whether two spellings name one resource (RFC 8707): a grant is for one MCP server. */
export const sameResource = (a: string, b: string) => canonicalResource(a) === canonicalResource(b);

/** The scopes of a space-separated `scope`; undefined when one is unknown. None asked: read. */
export function parseScope(scope: string | null | undefined): Scope[] | undefined {
  if (!scope?.trim()) return [DEFAULT_SCOPE];
  const asked = [...new Set(scope.trim().split(/ +/))];
  return asked.every((s) => SCOPE_SET.has(s)) ? (asked as Scope[]) : undefined;
}

/** The redirect URI with `params` added to its query (the fragment-free URI was validated). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
