import type { Role } from '#lib/access/scopes';
import type { KeyEvent } from '#lib/events/model';
import { type KeyRecord, REVOCABLE, STATUS_RULES, satisfies } from '#lib/keys/model';
import type {
  EventPage,
  EventQuery,
  InsertOutcome,
  KeyStore,
  ListPage,
  ListQuery,
  MembershipReader,
  Narrowed,
  NarrowOutcome,
  RevokeOutcome,
  RotateOutcome,
} from '#lib/keys/port';
import { type LineageSlots, useIsDue } from '#lib/keys/rules';

/**
 * The storage port in memory, for lifecycle unit tests: the same outcomes as the DynamoDB
 * adapter (each method is atomic, as its transaction is), with no rule of its own.
 */
export class MemoryKeyStore implements KeyStore {
  readonly keys = new Map<string, KeyRecord>();
  readonly slots = new Map<string, LineageSlots>();
  /** Every event written, in write order. */
  readonly events: KeyEvent[] = [];
  /** Every call, by method name, for tests that count what the use cases ask of storage. */
  readonly calls: string[] = [];

  async get(id: string) {
    this.calls.push('get');
    const record = this.keys.get(id);
    return record && { ...record };
  }

  async getMany(ids: readonly string[]) {
    this.calls.push('getMany');
    const found = new Map<string, KeyRecord>();
    for (const id of ids) {
      const record = this.keys.get(id);
      if (record) found.set(id, { ...record });
    }
    return found;
  }

  async insert(record: KeyRecord, maxSlots: number, events: readonly KeyEvent[]): Promise<InsertOutcome> {
    this.calls.push('insert');
    if (this.keys.has(record.id)) throw new Error(`key id ${record.id} is already taken`);
    const held = this.slots.get(record.user_id) ?? {};
    if (Object.keys(held).length >= maxSlots || record.lineage_id in held) {
      return { kind: 'no_free_slot', slots: { ...held } };
    }
    this.slots.set(record.user_id, { ...held, [record.lineage_id]: record.expires_at });
    this.keys.set(record.id, { ...record });
    this.events.push(...events);
    return { kind: 'inserted' };
  }

  async releaseSlots(userId: string, slots: LineageSlots) {
    this.calls.push('releaseSlots');
    const held = { ...this.slots.get(userId) };
    if (Object.entries(slots).some(([lineage, expiresAt]) => held[lineage] !== expiresAt)) return;
    for (const lineage of Object.keys(slots)) delete held[lineage];
    this.slots.set(userId, held);
  }

  async revoke(record: KeyRecord, now: Date, events: readonly KeyEvent[]): Promise<RevokeOutcome> {
    this.calls.push('revoke');
    const current = this.keys.get(record.id);
    if (!current || current.user_id !== record.user_id) return { kind: 'not_found' };
    if (!satisfies(current, REVOCABLE, now)) return { kind: 'already_revoked', current: { ...current } };
    const revoked = { ...current, revoked_at: now.toISOString() };
    this.keys.set(record.id, revoked);
    const held = { ...this.slots.get(record.user_id) };
    delete held[record.lineage_id];
    this.slots.set(record.user_id, held);
    this.events.push(...events);
    return { kind: 'revoked', record: { ...record, revoked_at: revoked.revoked_at } };
  }

  async narrow(
    record: KeyRecord,
    changes: Narrowed,
    now: Date,
    events: readonly KeyEvent[],
  ): Promise<NarrowOutcome> {
    this.calls.push('narrow');
    const current = this.keys.get(record.id);
    if (!current) return { kind: 'not_found' };
    if (
      !satisfies(current, STATUS_RULES.active, now) ||
      JSON.stringify(current.tools) !== JSON.stringify(record.tools)
    )
      return { kind: 'changed' };
    const next = { ...current, ...changes };
    this.keys.set(record.id, next);
    this.events.push(...events);
    return { kind: 'narrowed', record: { ...next } };
  }

  async rotate(
    old: KeyRecord,
    next: KeyRecord,
    now: Date,
    events: readonly KeyEvent[],
  ): Promise<RotateOutcome> {
    this.calls.push('rotate');
    const current = this.keys.get(old.id);
    if (!current || current.user_id !== old.user_id) return { kind: 'not_found' };
    if (!satisfies(current, STATUS_RULES.active, now)) {
      return current.revoked_at
        ? { kind: 'already_revoked', current: { ...current } }
        : { kind: 'expired', current: { ...current } };
    }
    if (current.workspace_ids.length !== old.workspace_ids.length)
      return { kind: 'changed', current: { ...current } };
    if (this.keys.has(next.id)) throw new Error(`key id ${next.id} is already taken`);
    const revoked = { ...current, revoked_at: now.toISOString(), replaced_by: next.id };
    this.keys.set(old.id, revoked);
    this.keys.set(next.id, { ...next });
    this.events.push(...events);
    return { kind: 'rotated', revoked: { ...old, revoked_at: revoked.revoked_at, replaced_by: next.id } };
  }

  async recordUse(id: string, now: Date) {
    this.calls.push('recordUse');
    const current = this.keys.get(id);
    if (!current || !useIsDue(current.last_used_at, now)) return false;
    this.keys.set(id, { ...current, last_used_at: now.toISOString() });
    return true;
  }

  async listLineageEvents(lineageId: string, query: EventQuery): Promise<EventPage> {
    this.calls.push('listLineageEvents');
    const position = (e: { occurred_at: string; id: string }) => `${e.occurred_at}#${e.id}`;
    const all = this.events
      .filter((e) => e.lineage_id === lineageId)
      .filter((e) => !query.after || position(e) < position(query.after))
      .sort((a, b) => (position(a) < position(b) ? 1 : -1));
    return { items: all.slice(0, query.limit), hasMore: all.length > query.limit };
  }

  async listByUser(userId: string, query: ListQuery): Promise<ListPage> {
    this.calls.push('listByUser');
    const position = (r: Pick<KeyRecord, 'created_at' | 'id'>) => `${r.created_at}#${r.id}`;
    const all = [...this.keys.values()]
      .filter((r) => r.user_id === userId)
      .filter((r) => !query.after || position(r) < position(query.after))
      .filter((r) => !query.status || satisfies(r, STATUS_RULES[query.status], query.now))
      .sort((a, b) => (position(a) < position(b) ? 1 : -1));
    return { items: all.slice(0, query.limit), hasMore: all.length > query.limit };
  }
}

/** Memberships in memory: `set(user, workspace, role)` and `remove(user, workspace)`. */
export class MemoryMemberships implements MembershipReader {
  private readonly roles = new Map<string, Role>();

  set(userId: string, workspaceId: string, role: Role): void {
    this.roles.set(`${userId}\n${workspaceId}`, role);
  }

  remove(userId: string, workspaceId: string): void {
    this.roles.delete(`${userId}\n${workspaceId}`);
  }

  async rolesFor(userId: string, workspaceIds: readonly string[]) {
    const found = new Map<string, Role>();
    for (const id of workspaceIds) {
      const role = this.roles.get(`${userId}\n${id}`);
      if (role) found.set(id, role);
    }
    return found;
  }
}
