import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '#lib/errors';
import type { PepperSource } from './pepper.ts';
import type { ListPosition } from './port.ts';

const MAC_BYTES = 16;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Opaque list cursors: the position of the last item, MAC'd together with the user id, so a
 * cursor that was altered or belongs to someone else is refused. The MAC key is derived from the
 * current pepper, so a pepper rotation invalidates outstanding cursors (they are short-lived).
 */
export class CursorCodec {
  constructor(private readonly peppers: PepperSource) {}

  private async mac(userId: string, payload: string): Promise<Buffer> {
    const pepper = await this.peppers.pepper(this.peppers.currentVersion);
    const key = createHmac('sha256', pepper).update('svc-mcp-list-cursor/v1').digest();
    return createHmac('sha256', key).update(`${userId}\n${payload}`).digest().subarray(0, MAC_BYTES);
  }

  async encode(userId: string, position: ListPosition): Promise<string> {
    const payload = Buffer.from(JSON.stringify([position.created_at, position.id])).toString('base64url');
    return `${payload}.${(await this.mac(userId, payload)).toString('base64url')}`;
  }

  async decode(userId: string, cursor: string): Promise<ListPosition> {
    const invalid = () =>
      new AppError('invalid_cursor', 'The cursor is invalid or was not issued to this caller.');
    const [payload, tag, ...rest] = cursor.split('.');
    if (!payload || !tag || rest.length > 0 || payload.length > 200) throw invalid();
    const given = Buffer.from(tag, 'base64url');
    const expected = await this.mac(userId, payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (!Array.isArray(parsed) || parsed.length !== 2) throw invalid();
    const [createdAt, id] = parsed as unknown[];
    if (typeof createdAt !== 'string' || !ISO.test(createdAt) || typeof id !== 'string' || !UUID.test(id)) {
      throw invalid();
    }
    return { created_at: createdAt, id };
  }
}
