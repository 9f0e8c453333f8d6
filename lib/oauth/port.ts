import type { Role, Scope } from '#lib/access/scopes';
import type { RulesByWorkspace } from '#lib/access/tools';
import type { KeyEvent } from '#lib/events/model';
import type { GrantDetails, KeyRecord, TokenDigest } from '#lib/keys/model';
import type { AccountDisabledOutcome, InsertOutcome, PersonDisabled } from '#lib/keys/port';
import type { LineageSlots } from '#lib/keys/rules';
import type { AuthorizationRequest, RegisteredClient } from './model.ts';

/** What widening a live grant (scope step-up) sets on it: its scopes, and the new code's redirect. */
export interface GrantWidening {
  scopes: Scope[];
  /** The grant's workspaces after the widening: those it had, then those added. */
  workspace_ids: string[];
  code: NonNullable<GrantDetails['code']>;
  redirect_uri: string;
  redirect_host: string;
  /** The tools the person allowed (contract §19); undefined: every tool its scopes allow. */
  tools?: string[] | undefined;
  /** What the workspaces' policies leave the widened grant. @default unchanged */
  workspace_rules?: RulesByWorkspace | undefined;
}

/** The token digests one exchange sets on a grant. */
export type GrantTokens = Required<Pick<GrantDetails, 'access' | 'refresh'>> &
  Pick<GrantDetails, 'previous_access' | 'replaced_refresh'>;

/**
 * What the authorization server needs from storage besides the key store (the grant itself is a
 * key record): the port, owned by the domain; `lib/store/oauth-store.ts` implements it on the keys
 * table. Lost races are answered as data (`false`, `already_decided`); only a failing dependency
 * throws.
 */
export interface OAuthStore {
  /** Stores a new authorization request; it disappears after its `expires_at`. */
  putRequest(request: AuthorizationRequest): Promise<void>;
  /** Strongly consistent read of a request (an expired one may still be returned: check `expires_at`). */
  getRequest(id: string): Promise<AuthorizationRequest | undefined>;
  /** Gives an unclaimed request to `userId`; returns the request as stored afterwards. */
  claimRequest(id: string, userId: string): Promise<AuthorizationRequest | undefined>;
  /**
   * Inserts `grant` (taking a slot among at most `maxSlots`, with its index entries and `events`)
   * and marks the request approved, in one transaction; `already_decided` when another decision
   * landed first.
   */
  approve(
    request: AuthorizationRequest,
    grant: KeyRecord,
    maxSlots: number,
    events: readonly KeyEvent[],
  ): Promise<InsertOutcome | { kind: 'already_decided' }>;
  /**
   * Widens the live `grant` the request's person already gave its client for its resource (scope
   * step-up): its scopes (and its workspace index entries' copies), the new code with its
   * redirect, `events`, and the request marked approved and pointed at the grant, in one
   * transaction. `already_decided` when another decision landed first; `grant_changed` when the
   * grant was revoked, expired or changed since it was read.
   */
  widen(
    request: AuthorizationRequest,
    grant: KeyRecord,
    widening: GrantWidening,
    events: readonly KeyEvent[],
    now: Date,
  ): Promise<'widened' | 'already_decided' | 'grant_changed'>;
  /** Marks the request denied; false when a decision landed first. */
  deny(request: AuthorizationRequest): Promise<boolean>;
  /** Stores a dynamically registered client; it disappears after `expiresAt` unless a grant uses it. */
  putClient(client: RegisteredClient, expiresAt: Date): Promise<void>;
  getClient(clientId: string): Promise<RegisteredClient | undefined>;
  /** A grant used the registration: it no longer expires. */
  keepClient(clientId: string, now: Date): Promise<void>;
  /**
   * Redeems the grant's authorization code: sets its first tokens and remembers the code's digest,
   * if the grant is still unrevoked with the code it was read with; false otherwise.
   */
  redeemCode(grant: KeyRecord, tokens: GrantTokens): Promise<boolean>;
  /** Replaces the grant's tokens, if it is still unrevoked with the refresh token it was read with. */
  replaceTokens(grant: KeyRecord, tokens: GrantTokens): Promise<boolean>;
}

/** An ID-JAG an exchange consumes (contract §17): kept until its `exp`, so that a replay finds it. */
export interface UsedAssertion {
  issuer: string;
  jti: string;
  /** Its `exp` (ISO 8601). */
  until: string;
}

/** What an exchange sets on the person's live enterprise grant: its access now, and its new access token. */
export interface EnterpriseRenewal {
  workspace_ids: string[];
  scopes: Scope[];
  /** What the workspaces' policies leave it now (contract §19). @default none */
  workspace_rules?: RulesByWorkspace;
  expires_at: string;
  access: TokenDigest;
  previous_access?: TokenDigest | undefined;
}

/** What names the one enterprise grant of a person, an app, an MCP server and an IdP (contract §17). */
export interface EnterpriseGrantKey {
  userId: string;
  clientId: string;
  /** The MCP server, canonical. */
  resource: string;
  idp: string;
}

/**
 * Enterprise grants' writes (contract §17), each consuming the ID-JAG it was made from in the same
 * transaction: a replayed ID-JAG writes nothing, and an ID-JAG is consumed only by a grant written.
 * Each (person, app, MCP server, IdP) names its current grant in one item, so that concurrent
 * first exchanges make one grant, not two.
 */
export interface EnterpriseStore {
  /** The id of the current grant of `key` (live, or revoked or expired since), if there ever was one. */
  currentGrantId(key: EnterpriseGrantKey): Promise<string | undefined>;
  /**
   * Inserts a new enterprise grant under the cap (the key store's insert, the ID-JAG consumed with
   * it) and makes it `key`'s current grant, if the current one is still `replacing` (none when
   * undefined): `raced` when a concurrent exchange made one first.
   */
  insert(
    grant: KeyRecord,
    maxSlots: number,
    events: readonly KeyEvent[],
    assertion: UsedAssertion,
    current: { key: EnterpriseGrantKey; replacing: string | undefined },
  ): Promise<InsertOutcome | { kind: 'replayed' } | { kind: 'raced' }>;
  /**
   * Renews the live grant as read: its workspaces (index entries put and deleted to match), scopes,
   * expiry (its slot too) and access token. `grant_changed` when it was revoked or changed since.
   */
  renew(
    grant: KeyRecord,
    renewal: EnterpriseRenewal,
    assertion: UsedAssertion,
    key: EnterpriseGrantKey,
  ): Promise<'renewed' | 'replayed' | 'grant_changed' | AccountDisabledOutcome>;
  /** Whether a security event token (its issuer and `jti`) was acted on already (contract §17). */
  signalSeen(signal: UsedAssertion): Promise<boolean>;
  /** Remembers a security event token acted on, until its `until`. */
  recordSignal(signal: UsedAssertion): Promise<void>;
  /**
   * Records that an identity provider disabled or purged the person: from then on every mint for
   * them (create, rotate, approve, exchange) is refused, in its own transaction.
   */
  disablePerson(userId: string, mark: PersonDisabled): Promise<void>;
  /** Removes `issuer`'s disabling of the person; whether they are now enabled (no other IdP disabled them). */
  enablePerson(userId: string, issuer: string): Promise<boolean>;
  /** The lineages holding a slot for the person, with their expiry, read strongly consistently. */
  heldSlots(userId: string): Promise<LineageSlots>;
}

/** Every workspace a person is a member of, with their role (an enterprise grant reaches those its policies admit). */
export interface MembershipLister {
  rolesOf(userId: string): Promise<Map<string, Role>>;
}
