import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '#lib/errors';
import { type PepperSource, pepperMac } from './pepper.ts';
import type { EventPosition, ListPosition } from './port.ts';

const MAC_BYTES = 16;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What a cursor is for; each purpose MACs with its own key, so one never passes for another. */
type Purpose =
  | 'svc-mcp-list-cursor/v1'
  | 'svc-mcp-events-cursor/v1'
  | 'svc-mcp-workspace-keys-cursor/v1'
  | 'svc-mcp-workspace-events-cursor/v1';

const invalid = () =>
  new AppError('invalid_cursor', 'The cursor is invalid or was not issued to this caller.');

/**
 * Opaque page cursors: the position of the last item, MAC'd together with what it is bound to
 * (the user; for events, also the lineage), so a cursor that was altered or belongs to someone
 * else is refused. The MAC key is derived from the current pepper, so a pepper rotation
 * invalidates outstanding cursors (they are short-lived).
 */
export class CursorCodec {
  constructor(private readonly peppers: PepperSource) {}

  private async mac(purpose: Purpose, binding: string, payload: string): Promise<Buffer> {
    const key = await pepperMac(this.peppers, purpose);
    return createHmac('sha256', key).update(`${binding}\n${payload}`).digest().subarray(0, MAC_BYTES);
  }

  private async seal(purpose: Purpose, binding: string, fields: [string, string]): Promise<string> {
    const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
    return `${payload}.${(await this.mac(purpose, binding, payload)).toString('base64url')}`;
  }

  /** The [timestamp, uuid] a cursor carries, once its MAC is verified. */
  private async open(purpose: Purpose, binding: string, cursor: string): Promise<[string, string]> {
    const [payload, tag, ...rest] = cursor.split('.');
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: an empty part or a long payload fails the MAC anyway; the check saves the work
    if (!payload || !tag || rest.length > 0 || payload.length > 200) throw invalid();
    const given = Buffer.from(tag, 'base64url');
    const expected = await this.mac(purpose, binding, payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    let parsed: unknown;
    // Stryker disable BlockStatement: only a payload this codec MAC'd gets here, and it is always JSON (this also switches off the try block's, killed by test/unit/cursor.test.ts)
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    // Stryker restore BlockStatement
    // Stryker disable next-line all: only a payload this codec MAC'd gets here, and it is always a pair
    if (!Array.isArray(parsed) || parsed.length !== 2) throw invalid();
    const [time, id] = parsed as unknown[];
    // Stryker disable next-line ConditionalExpression: only strings are sealed, and the patterns refuse anything else anyway
    if (typeof time !== 'string' || !ISO.test(time) || typeof id !== 'string' || !UUID.test(id)) {
      throw invalid();
    }
    return [time, id];
  }

  /** A list cursor, bound to its user. */
  encode(userId: string, position: ListPosition): Promise<string> {
    return this.seal('svc-mcp-list-cursor/v1', userId, [position.created_at, position.id]);
  }

  async decode(userId: string, cursor: string): Promise<ListPosition> {
    const [created_at, id] = await this.open('svc-mcp-list-cursor/v1', userId, cursor);
    return { created_at, id };
  }

  /** An events cursor, bound to its user and the lineage it pages through. */
  encodeEvents(userId: string, lineageId: string, position: EventPosition): Promise<string> {
    return this.seal('svc-mcp-events-cursor/v1', JSON.stringify([userId, lineageId]), [
      position.occurred_at,
      position.id,
    ]);
  }

  async decodeEvents(userId: string, lineageId: string, cursor: string): Promise<EventPosition> {
    const binding = JSON.stringify([userId, lineageId]);
    const [occurred_at, id] = await this.open('svc-mcp-events-cursor/v1', binding, cursor);
    return { occurred_at, id };
  }

  /** A cursor of a workspace's keys (or, `events`, of its governance events), bound to caller and workspace. */
  encodeWorkspace(
    kind: 'keys' | 'events',
    userId: string,
    workspaceId: string,
    fields: [string, string],
  ): Promise<string> {
    return this.seal(workspacePurpose(kind), JSON.stringify([userId, workspaceId]), fields);
  }

  decodeWorkspace(
    kind: 'keys' | 'events',
    userId: string,
    workspaceId: string,
    cursor: string,
  ): Promise<[string, string]> {
    return this.open(workspacePurpose(kind), JSON.stringify([userId, workspaceId]), cursor);
  }
}

const workspacePurpose = (kind: 'keys' | 'events'): Purpose =>
  // Stryker disable next-line EqualityOperator,StringLiteral: the two purposes only need to differ from each other and the rest
  kind === 'keys' ? 'svc-mcp-workspace-keys-cursor/v1' : 'svc-mcp-workspace-events-cursor/v1';
