import type { CredentialKind, GrantKind } from '#lib/access/credential-kinds';
import type { Scope } from '#lib/access/scopes';
import type { RulesByWorkspace } from '#lib/access/tools';
import { DAY_MS } from '#lib/limits';
import { type EffectiveLimit, effectiveLimits, type Limits, rateAttribute, windowAt } from './limits.ts';

/** A key as stored: everything but the secret. `lineage_id` is the id of the first key of a rotation chain. */
export interface KeyRecord {
  /** The key's id (the id part of the key itself). */
  id: string;
  /** The person who created the key (the JWT's `sub`); the key acts as them. */
  user_id: string;
  /** The id of the first key of the rotation chain this key belongs to. */
  lineage_id: string;
  /** The name its creator gave the key. */
  name: string;
  /** The workspaces the key was created for. */
  workspace_ids: string[];
  /** The scopes the key was created with (before implied ones are added). */
  scopes: Scope[];
  /** The key's peppered digest (HMAC-SHA-256, base64url); empty for an OAuth grant. */
  digest: string;
  /** The pepper version `digest` was computed with. */
  pepper_version: number;
  /** The last characters of the key, shown to tell keys apart. */
  key_hint: string;
  /** When the key was created (ISO 8601). */
  created_at: string;
  /** When the key stops verifying (ISO 8601). */
  expires_at: string;
  /** When the key was last verified, at most once a minute (ISO 8601). */
  last_used_at?: string;
  /**
   * Its calls by UTC day (`YYYY-MM-DD`), allowed or refused, over about the last two weeks: what the
   * usage writes add to the key's own item (contract §18), for the list's `calls_7d`.
   */
  calls_by_day?: Record<string, number>;
  /** When the key was revoked (ISO 8601); absent while it is not. */
  revoked_at?: string;
  /** The id of the key this one replaced by rotation. */
  rotated_from?: string;
  /** The id of the key that replaced this one by rotation. */
  replaced_by?: string;
  /** Workspaces an administrator or a workspace policy cut the key (or its lineage) off from (contract §12). */
  removed_workspace_ids?: string[];
  /**
   * The tools its creator limited it to (contract §19), in catalogue order; absent: every tool its
   * scopes allow.
   */
  tools?: string[];
  /** The calls per UTC minute and day its owner allows it (contract §19); absent: none. */
  limits?: Limits;
  /**
   * The counters of its limited calls as stored (`rate_<window>`, contract §19): what a read of
   * its item found, never written whole.
   */
  rate_counts?: Record<string, number>;
  /**
   * What each workspace's policy leaves it there (contract §19: the tools it allows, and for a
   * credential narrowed rather than cut off the scopes), written at create and by the policy
   * fan-out, so a verification reads them with the key. A workspace without rules is absent.
   */
  workspace_rules?: RulesByWorkspace;
  /**
   * Absent for an API key; an OAuth grant (contract §15) and an enterprise grant (contract §17,
   * the identity provider's decision) are credentials of the same list.
   */
  kind?: GrantKind;
  /** A grant's client and token digests; present exactly when `kind` is set. */
  grant?: GrantDetails;
}

/** A stored token digest and until when the token it digests is accepted (ISO 8601). */
export interface TokenDigest {
  /** The token's peppered digest. */
  digest: string;
  /** Until when the token is accepted (ISO 8601). */
  until: string;
}

/** The client a grant was given to, as the person's list and the consent page show it. */
export interface GrantClient {
  /** The OAuth `client_id`: a metadata document URL, or an id given by dynamic registration. */
  id: string;
  /** The client's name, as it registered it. */
  name: string;
  /** The host of the client's metadata document; null for a client registered dynamically. */
  verified_domain: string | null;
}

/**
 * What a grant holds besides a key's fields. Tokens are kept only as peppered digests (with the
 * grant's `pepper_version`); a grant's `digest` is empty, so no key ever matches it.
 */
export interface GrantDetails {
  /** The client the grant was given to. */
  client: GrantClient;
  /** The redirect URI the authorization request named, where the code was sent (empty for an enterprise grant: no redirect). */
  redirect_uri: string;
  /** The host of `redirect_uri`, shown in the person's list (empty for an enterprise grant). */
  redirect_host: string;
  /** For an enterprise grant: the identity provider (its issuer) whose ID-JAGs it was exchanged for. */
  idp?: string;
  /** The MCP server (RFC 8707 resource) the grant's access tokens are for. */
  resource: string;
  /** The authorization code not yet redeemed, with its PKCE S256 challenge. */
  code?: TokenDigest & { challenge: string };
  /** The redeemed code's digest: presenting it again revokes the grant. */
  redeemed_code?: string;
  /** The current access token (`until`: its expiry). */
  access?: TokenDigest;
  /** The access token the last refresh replaced, accepted for a minute more (never past its expiry). */
  previous_access?: TokenDigest;
  /** The current refresh token's digest. */
  refresh?: string;
  /** The last replaced refresh tokens, newest first; each is accepted until its `until`. */
  replaced_refresh?: TokenDigest[];
}

/**
 * An MCP server's URL (RFC 8707 resource) as WHATWG URL serializes it, so that spellings of one
 * server compare equal: `https://A.example:443/mcp` is `https://a.example/mcp`.
 */
export const canonicalResource = (resource: string): string =>
  URL.canParse(resource) ? new URL(resource).href : resource;

export { CREDENTIAL_KINDS, type CredentialKind, type GrantKind } from '#lib/access/credential-kinds';

/** An identity provider as people see it: its issuer's host (with a port other than the default). */
export const idpHost = (issuer: string): string => (URL.canParse(issuer) ? new URL(issuer).host : issuer);

/** What the workspace policy knows of a credential's client, and whether the identity provider decided it. */
export const policyClientOf = (record: Pick<KeyRecord, 'kind' | 'grant'>) =>
  record.grant
    ? { verified_domain: record.grant.client.verified_domain, enterprise: record.kind === 'enterprise_grant' }
    : undefined;
export const credentialKind = (record: Pick<KeyRecord, 'kind'>): CredentialKind => record.kind ?? 'api_key';

export const KEY_STATUSES = ['active', 'revoked', 'expired'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** A key's life, as every view of it shows it: when it began and ended, and its rotation chain. */
export interface KeyTimeline {
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  rotated_from: string | null;
  replaced_by: string | null;
}

/** The non-secret view returned by every endpoint (contract §5 "Metadata object"). */
export interface KeyMetadata extends KeyTimeline {
  id: string;
  name: string;
  key_hint: string;
  scopes: Scope[];
  workspace_ids: string[];
  status: KeyStatus;
  removed_workspace_ids: string[];
  /** The tools its creator limited it to; null: every tool its scopes allow. */
  tools: string[] | null;
  /** What each workspace's policy leaves it there, where a policy narrows it (contract §19). */
  workspace_rules: RulesByWorkspace;
  /** Its own calls per UTC minute and day (contract §19); null: no limit of its own. */
  limits: { per_minute: number | null; per_day: number | null };
  /** The limits that apply (its own and its workspaces' caps, the smallest) and its calls counted in each window now. */
  effective_limits: (EffectiveLimit & { calls: number })[];
  kind: CredentialKind;
  /** For a grant: the client it was given to. */
  client?: GrantClient;
  /** For a consent grant: the host its client's redirect URI points at. */
  redirect_host?: string;
  /** For an enterprise grant: the host of the identity provider that decided it. */
  identity_provider?: string;
}

/**
 * The status rule (contract §5), written once as data: a key is `revoked` once it has a
 * `revoked_at`, else `expired` once now ≥ `expires_at`, else `active`. `keyStatus` evaluates it
 * in memory; the store turns the same predicates into the list filter and the rotate condition.
 */
export const STATUS_RULES: Record<KeyStatus, { revoked: boolean; expired?: boolean }> = {
  active: { revoked: false, expired: false },
  revoked: { revoked: true },
  expired: { revoked: false, expired: true },
};
export type StatusPredicate = (typeof STATUS_RULES)[KeyStatus];

/** Any key not yet revoked may be revoked, expired ones included. */
export const REVOCABLE: StatusPredicate = { revoked: false };

type StatusFields = Pick<KeyRecord, 'revoked_at' | 'expires_at'>;

/** Whether a record satisfies one status predicate at `now`. */
export function satisfies(record: StatusFields, rule: StatusPredicate, now: Date): boolean {
  if (Boolean(record.revoked_at) !== rule.revoked) return false;
  if (rule.expired === undefined) return true;
  return now.getTime() >= Date.parse(record.expires_at) === rule.expired;
}

export function keyStatus(record: StatusFields, now: Date): KeyStatus {
  // Stryker disable next-line StringLiteral: every record satisfies one of the three rules, so the fallback is never used
  return KEY_STATUSES.find((status) => satisfies(record, STATUS_RULES[status], now)) ?? 'expired';
}

/** A record's timeline, field by field (nothing else of the record can slip into a view). */
export function timelineOf(record: KeyRecord): KeyTimeline {
  return {
    created_at: record.created_at,
    expires_at: record.expires_at,
    last_used_at: record.last_used_at ?? null,
    revoked_at: record.revoked_at ?? null,
    rotated_from: record.rotated_from ?? null,
    replaced_by: record.replaced_by ?? null,
  };
}

/**
 * A credential's calls over the last seven days (`calls_7d` of its owner's list): the days from the
 * one seven days before `now` to today, as the usage views count them.
 */
export function callsInLastWeek(record: Pick<KeyRecord, 'calls_by_day'>, now: Date): number {
  const first = new Date(now.getTime() - 7 * DAY_MS).toISOString().slice(0, 10);
  let calls = 0;
  for (const [day, n] of Object.entries(record.calls_by_day ?? {})) if (day >= first) calls += n;
  return calls;
}

/** The limits that apply to a credential and its calls counted in each window at `now`. */
function limitsNow(record: KeyRecord, now: Date): (EffectiveLimit & { calls: number })[] {
  return effectiveLimits(record.limits, record.workspace_rules, record.workspace_ids).map((limit) => ({
    ...limit,
    calls: record.rate_counts?.[rateAttribute(windowAt(limit.window, now).id)] ?? 0,
  }));
}

export function toMetadata(record: KeyRecord, now: Date): KeyMetadata {
  return {
    id: record.id,
    name: record.name,
    key_hint: record.key_hint,
    scopes: record.scopes,
    workspace_ids: record.workspace_ids,
    status: keyStatus(record, now),
    ...timelineOf(record),
    removed_workspace_ids: record.removed_workspace_ids ?? [],
    tools: record.tools ?? null,
    workspace_rules: record.workspace_rules ?? {},
    limits: { per_minute: record.limits?.per_minute ?? null, per_day: record.limits?.per_day ?? null },
    effective_limits: limitsNow(record, now),
    kind: credentialKind(record),
    ...(record.grant && { client: record.grant.client }),
    ...(record.grant && !record.grant.idp && { redirect_host: record.grant.redirect_host }),
    ...(record.grant?.idp && { identity_provider: idpHost(record.grant.idp) }),
  };
}
