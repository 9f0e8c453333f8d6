import type { Role } from '#lib/access/scopes';
import type { KeyEvent } from '#lib/events/model';
import type { Limits } from './limits.ts';
import type { KeyRecord, KeyStatus } from './model.ts';
import type { LineageSlots } from './rules.ts';

/**
 * What the key lifecycle needs from storage: the port, owned by the domain. `lib/store/`
 * implements it for DynamoDB and tests implement it in memory. Expected outcomes (a lost race,
 * a missing key, a full cap) are returned as data; only a failing dependency throws.
 *
 * Every change takes the audit events that record it (contract §10) and writes them in the same
 * transaction: the use case decides which events a change has, the store only writes them, and
 * a change that does not happen writes none of its events.
 */

/** Position of the last item of a page; the next page starts after it. */
export interface ListPosition {
  created_at: string;
  id: string;
}

export interface ListQuery {
  limit: number;
  after?: ListPosition | undefined;
  status?: KeyStatus | undefined;
  now: Date;
}

export interface ListPage {
  items: KeyRecord[];
  hasMore: boolean;
}

/** Position of the last event of a page of a lineage's events. */
export interface EventPosition {
  occurred_at: string;
  id: string;
}

export interface EventQuery {
  limit: number;
  after?: EventPosition | undefined;
}

export interface EventPage {
  items: KeyEvent[];
  hasMore: boolean;
}

/**
 * An identity provider disabled or purged the person (contract §17): nothing is minted for them
 * until it enables them again. Kept per issuer on the person's slot item, which every mint writes
 * or checks in its own transaction.
 */
export interface PersonDisabled {
  /** The IdP's issuer. */
  issuer: string;
  event: 'account-disabled' | 'account-purged';
  /** When the signal was acted on. */
  at: string;
}

/** An insert or a rotation refused because an identity provider disabled the person. */
export interface AccountDisabledOutcome {
  kind: 'account_disabled';
  disabled: PersonDisabled;
}

export type InsertOutcome =
  | { kind: 'inserted' }
  /** The lineage could not take a slot: `slots` are the user's lineages holding one. */
  | { kind: 'no_free_slot'; slots: LineageSlots }
  | AccountDisabledOutcome;

export type RevokeOutcome =
  | { kind: 'revoked'; record: KeyRecord }
  /** Revoked before this request's write landed; `current` is the stored record. */
  | { kind: 'already_revoked'; current: KeyRecord }
  | { kind: 'not_found' };

export type RotateOutcome =
  | { kind: 'rotated'; revoked: KeyRecord }
  /** Another request revoked or rotated the key after this one read it. */
  | { kind: 'already_revoked'; current: KeyRecord }
  /** The key expired between the read and the write. */
  | { kind: 'expired'; current: KeyRecord }
  /** A workspace administrator cut the key off from a workspace after the read: rotate `current`. */
  | { kind: 'changed'; current: KeyRecord }
  | AccountDisabledOutcome
  | { kind: 'not_found' };

/** What a PATCH changes on a credential (contract §19): only ever narrower. */
export interface Narrowed {
  /** Its own tools after the change. */
  tools?: string[];
  /** Its own limits after the change. */
  limits?: Limits;
}

export type NarrowOutcome =
  | { kind: 'narrowed'; record: KeyRecord }
  /** Changed (revoked, expired, or narrowed by another request) after it was read: read it again. */
  | { kind: 'changed' }
  | { kind: 'not_found' };

/** What the key verifier reads and writes of a key. */
export interface KeyReader {
  /** Strongly consistent read by id. */
  get(id: string): Promise<KeyRecord | undefined>;
  /** Records a use unless one was recorded within the interval; returns whether it wrote. */
  recordUse(id: string, now: Date): Promise<boolean>;
}

export interface KeyStore extends KeyReader {
  /**
   * Strongly consistent reads of many ids in as few round trips as storage allows; an id with
   * no key is absent from the map. A read storage left unfinished throws, never reads as absent.
   */
  getMany(ids: readonly string[]): Promise<Map<string, KeyRecord>>;
  /**
   * Inserts a new key and takes a slot for its lineage among at most `maxSlots`, atomically:
   * concurrent inserts never exceed the cap.
   */
  insert(record: KeyRecord, maxSlots: number, events: readonly KeyEvent[]): Promise<InsertOutcome>;
  /** Releases the given slots of a user, each only if still held with the same expiry. */
  releaseSlots(userId: string, slots: LineageSlots): Promise<void>;
  /**
   * Marks a key revoked and releases its lineage's slot, atomically; a key already revoked is
   * left alone and its events are not written.
   */
  revoke(record: KeyRecord, now: Date, events: readonly KeyEvent[]): Promise<RevokeOutcome>;
  /**
   * Revokes `old` (which must still be active at `now`, with the workspaces it was read with) and
   * inserts `next` with its workspace index entries, in one transaction.
   */
  rotate(old: KeyRecord, next: KeyRecord, now: Date, events: readonly KeyEvent[]): Promise<RotateOutcome>;
  /**
   * Narrows an active key or grant (contract §19) with its events, in one transaction, on
   * condition that it is still active and its narrowed fields are as `record` holds them.
   */
  narrow(
    record: KeyRecord,
    changes: Narrowed,
    now: Date,
    events: readonly KeyEvent[],
  ): Promise<NarrowOutcome>;
  /** A user's keys, newest first. */
  listByUser(userId: string, query: ListQuery): Promise<ListPage>;
  /** The events of a lineage (a key and every key rotated from or into it), newest first. */
  listLineageEvents(lineageId: string, query: EventQuery): Promise<EventPage>;
}

/** Read-only port to the form service's memberships. */
export interface MembershipReader {
  /** The user's current role in each of `workspaceIds` where they are a member. */
  rolesFor(userId: string, workspaceIds: readonly string[]): Promise<Map<string, Role>>;
}

/**
 * What the adapter learned about reading one key's memberships (which read costs less, by its
 * own pricing): opaque to the verifier, which keeps it with the key and hands it back, so the next
 * verification reads the cheaper way.
 */
export interface MembershipReadHint {
  /** Brands the hint: only an adapter makes one. */
  readonly membershipReadHint: never;
}

/** A read of a creator's memberships, and what the adapter learned for the next one. */
export interface MembershipRoles {
  /** The creator's current role in each of the key's workspaces where they are a member. */
  roles: Map<string, Role>;
  /** For the next read of this key's memberships, when the adapter learned something. */
  hint?: MembershipReadHint;
}

/**
 * What a warm verification reads of a key: the fields that change (`revoked_at`,
 * `last_used_at`) and those a verifier keeps in memory, returned so it can check they did not.
 */
export type KeyState = Pick<
  KeyRecord,
  | 'user_id'
  | 'workspace_ids'
  | 'scopes'
  | 'digest'
  | 'pepper_version'
  | 'expires_at'
  | 'revoked_at'
  | 'last_used_at'
  | 'kind'
  | 'grant'
  | 'tools'
  | 'workspace_rules'
>;

/** The reads of the key verifier, shaped for as few round trips and read units as possible. */
/**
 * Reads shaped for verification, which a store may offer beside `KeyReader` and
 * `MembershipReader`: one round trip for a key verified before (`VerifierDeps.reads`).
 */
export interface VerificationReads {
  /** The creator's memberships in `workspaceIds`, consistently; `hint`: from the last read. */
  readMemberships(
    userId: string,
    workspaceIds: readonly string[],
    hint: MembershipReadHint | undefined,
  ): Promise<MembershipRoles>;
  /**
   * The key's state (undefined when the item is gone) and the creator's memberships, consistently,
   * in one round trip. Unprocessed keys are retried, never read as absent.
   */
  readKeyAndMemberships(
    keyId: string,
    userId: string,
    workspaceIds: readonly string[],
    hint: MembershipReadHint | undefined,
  ): Promise<MembershipRoles & { key: KeyState | undefined }>;
}
