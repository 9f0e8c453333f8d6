import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import { CursorCodec } from '#lib/keys/cursor';
import type { PepperSource } from '#lib/keys/pepper';

/**
 * Page cursors: opaque, bound to the caller (and the lineage or workspace they page through) and
 * to the listing that issued them; anything else is refused as `invalid_cursor`.
 */
const peppers: PepperSource = { currentVersion: 1, pepper: async () => Buffer.alloc(32, 9) };
const codec = new CursorCodec(peppers);
const TIME = '2026-11-23T10:00:00.000Z';
const ID = '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61';
const OTHER = '0b0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61';

async function refusal(decoding: Promise<unknown>): Promise<AppError> {
  const error = await decoding.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(error instanceof AppError)) throw new Error(`expected invalid_cursor, got ${String(error)}`);
  expect(error.code).toBe('invalid_cursor');
  expect(error.detail).toBe('The cursor is invalid or was not issued to this caller.');
  return error;
}

describe('a cursor', () => {
  it('gives back the position it was made from, for each listing', async () => {
    const list = await codec.encode('alice', { created_at: TIME, id: ID });
    expect(await codec.decode('alice', list)).toEqual({ created_at: TIME, id: ID });
    const events = await codec.encodeEvents('alice', OTHER, { occurred_at: TIME, id: ID });
    expect(await codec.decodeEvents('alice', OTHER, events)).toEqual({ occurred_at: TIME, id: ID });
    for (const kind of ['keys', 'events'] as const) {
      const cursor = await codec.encodeWorkspace(kind, 'alice', OTHER, [TIME, ID]);
      expect(await codec.decodeWorkspace(kind, 'alice', OTHER, cursor)).toEqual([TIME, ID]);
    }
  });

  it('is opaque: neither the position nor the caller shows in it', async () => {
    const cursor = await codec.encode('alice', { created_at: TIME, id: ID });
    expect(cursor).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(cursor).not.toContain(ID);
    expect(cursor).not.toContain('alice');
  });

  it('is refused for another caller, lineage or workspace', async () => {
    await refusal(codec.decode('bob', await codec.encode('alice', { created_at: TIME, id: ID })));
    const events = await codec.encodeEvents('alice', OTHER, { occurred_at: TIME, id: ID });
    await refusal(codec.decodeEvents('bob', OTHER, events));
    await refusal(codec.decodeEvents('alice', ID, events));
    const keys = await codec.encodeWorkspace('keys', 'alice', OTHER, [TIME, ID]);
    await refusal(codec.decodeWorkspace('keys', 'bob', OTHER, keys));
    await refusal(codec.decodeWorkspace('keys', 'alice', ID, keys));
  });

  it('is refused by every listing but the one that issued it', async () => {
    const binding = JSON.stringify(['alice', OTHER]);
    const issued = {
      list: await codec.encode(binding, { created_at: TIME, id: ID }),
      events: await codec.encodeEvents('alice', OTHER, { occurred_at: TIME, id: ID }),
      workspaceKeys: await codec.encodeWorkspace('keys', 'alice', OTHER, [TIME, ID]),
      workspaceEvents: await codec.encodeWorkspace('events', 'alice', OTHER, [TIME, ID]),
    };
    const readers: Record<keyof typeof issued, (cursor: string) => Promise<unknown>> = {
      list: (c) => codec.decode(binding, c),
      events: (c) => codec.decodeEvents('alice', OTHER, c),
      workspaceKeys: (c) => codec.decodeWorkspace('keys', 'alice', OTHER, c),
      workspaceEvents: (c) => codec.decodeWorkspace('events', 'alice', OTHER, c),
    };
    for (const [issuer, cursor] of Object.entries(issued)) {
      for (const [reader, read] of Object.entries(readers)) {
        if (reader === issuer) await expect(read(cursor)).resolves.toBeDefined();
        else await refusal(read(cursor));
      }
    }
  });

  it('is refused when altered, cut short or extended', async () => {
    const cursor = await codec.encode('alice', { created_at: TIME, id: ID });
    const [payload = '', tag = ''] = cursor.split('.');
    const flip = (s: string) => (s.startsWith('A') ? `B${s.slice(1)}` : `A${s.slice(1)}`);
    for (const bad of [
      '',
      payload,
      `${payload}.`,
      `.${tag}`,
      `${flip(payload)}.${tag}`,
      `${payload}.${flip(tag)}`,
      `${payload}.${tag.slice(0, -2)}`,
      `${payload}.${tag}AA`,
      `${cursor}.`,
      `${cursor}.${tag}`,
    ]) {
      await refusal(codec.decode('alice', bad));
    }
  });

  it('is refused when what it carries is not a time and an id', async () => {
    for (const fields of [
      ['yesterday', ID],
      [TIME, 'key-1'],
    ] as [string, string][]) {
      const cursor = await codec.encodeWorkspace('keys', 'alice', OTHER, fields);
      await refusal(codec.decodeWorkspace('keys', 'alice', OTHER, cursor));
    }
  });
});
