import type { CredentialKind } from '#lib/access/credential-kinds';
import { effectiveAccess, type Role, type WorkspaceAccess } from '#lib/access/scopes';
import { type ToolCatalogue, toolsIn } from '#lib/access/tools';
import { RateLimiter } from './limiter.ts';
import { Lru } from './lru.ts';
import { canonicalResource, type KeyRecord, type TokenDigest } from './model.ts';
import type { MembershipReadHint, MembershipRoles } from './port.ts';
import {
  DEFAULT_VERIFIER_CACHE_SIZE,
  type KeyUse,
  type VerifierDeps,
  type VerifyResult,
} from './verification.ts';

/**
 * What the two paths of a verification share (lib/keys/verify.ts): the verifier's state, what it
 * keeps of a verified key, and how a key becomes an outcome.
 */

/**
 * What the verifier keeps of a key whose digest matched: the fields that never change, plus two
 * hints that only save work (the last use as last read, and the store's hint on how to read this
 * key's memberships more cheaply). Nothing here decides an outcome on its own: every verification
 * reads the key's state and the memberships again.
 */
export type VerifiedKey = Pick<
  KeyRecord,
  'id' | 'user_id' | 'workspace_ids' | 'scopes' | 'digest' | 'pepper_version' | 'expires_at' | 'last_used_at'
> & {
  read_hint?: MembershipReadHint | undefined;
  /** For a grant: the access token that matched (its digest and expiry), its client and resource. */
  token?: TokenDigest & { client_id: string; resource: string; idp?: string | undefined };
};

/** One verifier's state: its dependencies, the keys it verified, the resource it guards. */
export interface VerifierState {
  readonly deps: VerifierDeps;
  /** The keys whose digest matched, by id; kept only when `deps.reads` can verify them warm. */
  readonly verified: Lru<string, VerifiedKey>;
  /** `deps.resource`, canonical: serialized once, not on every access token's verification. */
  readonly ownResource: string | undefined;
  /** Counts limited credentials' calls (contract §19); none without `deps.rates`. */
  readonly limiter: RateLimiter | undefined;
}

/** A new verifier's state: nothing verified yet. */
export function verifierState(deps: VerifierDeps): VerifierState {
  return {
    deps,
    verified: new Lru<string, VerifiedKey>(deps.cacheSize ?? DEFAULT_VERIFIER_CACHE_SIZE),
    ownResource: deps.resource === undefined ? undefined : canonicalResource(deps.resource),
    limiter: deps.rates && new RateLimiter(deps.rates, deps.onUseRecordError),
  };
}

/**
 * A verification's outcome with the kind of credential it names, which the answer does not tell
 * (a refusal names only its id) but usage counts it under (contract §18). No kind: no stored credential.
 */
export interface Verified {
  result: VerifyResult;
  kind?: CredentialKind;
  /** The credential's creator, when the verification read it: its usage is rolled up under them. */
  userId?: string;
  /** For a valid credential: what narrows it, to tell who refused a tool (contract §19). */
  narrowing?: Narrowing;
}

/** The kind of a kept credential: a grant's access token names its IdP only for an enterprise grant. */
export const keptKind = (kept: VerifiedKey): CredentialKind =>
  kept.token ? (kept.token.idp ? 'enterprise_grant' : 'oauth_grant') : 'api_key';

export const NOT_FOUND: VerifyResult = { outcome: 'not_found' };

/** Revoked and expired are told only to whoever holds the whole secret (contract §7). */
export const refused = (
  status: 'revoked' | 'expired',
  key: Pick<KeyRecord, 'id' | 'expires_at'>,
): VerifyResult =>
  status === 'revoked'
    ? { outcome: 'revoked', key_id: key.id }
    : { outcome: 'expired', key_id: key.id, expires_at: key.expires_at };

function tell(deps: VerifierDeps, use: KeyUse): void {
  try {
    // Stryker disable next-line OptionalChaining: equivalent, calling a missing hook throws into the catch below, as an observer's failure does
    deps.onUse?.(use);
  } catch {
    // An observer's failure is not the verification's.
  }
}

/** Writes the key's last use, telling `onUse` how it went; never rejects. */
export function recordUse({ deps }: VerifierState, id: string, now: Date): Promise<void> {
  const at = now.toISOString();
  return deps.keys.recordUse(id, now).then(
    (wrote) => tell(deps, { key_id: id, at, outcome: wrote ? 'recorded' : 'already_recorded' }),
    (err: unknown) => {
      deps.onUseRecordError?.(err);
      tell(deps, { key_id: id, at, outcome: 'failed', error: err });
    },
  );
}

/** Keeps what the store learned about reading this key's memberships, for the next call. */
export function learn(kept: VerifiedKey, result: MembershipRoles): void {
  if (result.hint) kept.read_hint = result.hint;
}

/** What may change on a stored credential between two calls and narrows what it may do (contract §19). */
export type Narrowing = Pick<KeyRecord, 'tools' | 'workspace_rules' | 'limits' | 'rate_counts'>;

/**
 * The outcome for a key that is active: its effective access (each workspace with the tools the
 * credential may call there, when the verifier knows them), or `no_access` when it has none.
 */
export function grant(
  { deps }: VerifierState,
  key: VerifiedKey,
  roles: Map<string, Role>,
  { tools: own, workspace_rules: rules }: Narrowing,
): VerifyResult {
  const workspaces = effectiveAccess(key.workspace_ids, key.scopes, roles, (id) => rules?.[id]?.scopes);
  if (workspaces.length === 0) return { outcome: 'no_access', key_id: key.id };
  for (const access of workspaces) {
    const tools = toolsIn(deps.tools, access.scopes, own, rules?.[access.id]);
    if (tools) access.tools = tools;
  }
  const scopes = [...new Set(workspaces.flatMap((w) => w.scopes))];
  const tools = workspaces.some((w) => w.tools) ? unionOfTools(deps.tools, workspaces) : undefined;
  const toolsField = { ...(tools && { tools }), ...(own && { own_tools: [...own] }) };
  if (key.token)
    return {
      outcome: 'valid',
      kind: 'oauth',
      user_id: key.user_id,
      key_id: key.id,
      client_id: key.token.client_id,
      resource: key.token.resource,
      ...(key.token.idp && { identity_provider: key.token.idp }),
      expires_at: key.token.until,
      scopes,
      workspaces,
      ...toolsField,
    };
  return {
    outcome: 'valid',
    kind: 'api_key',
    user_id: key.user_id,
    key_id: key.id,
    expires_at: key.expires_at,
    scopes,
    workspaces,
    ...toolsField,
  };
}

/** The tools of any workspace, in catalogue order when there is a catalogue. */
function unionOfTools(
  catalogue: ToolCatalogue | undefined,
  workspaces: readonly WorkspaceAccess[],
): string[] {
  const names = new Set(workspaces.flatMap((w) => w.tools ?? []));
  return catalogue ? catalogue.map((t) => t.name).filter((n) => names.has(n)) : [...names];
}

/** Why an access token that matched is refused before any membership is read, if it is. */
export function tokenRefusal(
  { ownResource }: VerifierState,
  record: Pick<KeyRecord, 'id'>,
  token: TokenDigest & { resource: string },
  now: Date,
) {
  if (token.until <= now.toISOString())
    return { outcome: 'expired', key_id: record.id, expires_at: token.until } as const;
  if (ownResource !== undefined && canonicalResource(token.resource) !== ownResource)
    return { outcome: 'wrong_resource', key_id: record.id } as const;
  return undefined;
}
