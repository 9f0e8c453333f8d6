import { describe, expect, it } from 'vitest';
import { toEntry } from '#lib/events/eventbridge';
import { dueNotice, firstNoticeAt, markersFrom, NOTICES, nextNoticeAt } from '#lib/events/expiry';
import { keyCreated, keyLeakRevoked, keyRevoked, keyRotated, userActor } from '#lib/events/model';
import type { KeyRecord } from '#lib/keys/model';
import { streamItems } from '#lib/store/stream';

const DAY = 86_400_000;
const record: KeyRecord = {
  id: '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61',
  user_id: 'alice',
  lineage_id: '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61',
  name: 'laptop',
  workspace_ids: ['0b0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61'],
  scopes: ['svc.forms.read'],
  digest: 'c2VjcmV0LWRpZ2VzdC1uZXZlci1pbi1hbi1ldmVudA==',
  pepper_version: 1,
  key_hint: 'svc_mcp_v1_…Q9xZ',
  created_at: '2026-11-01T00:00:00.000Z',
  expires_at: '2026-12-01T00:00:00.000Z',
};
const expires = Date.parse(record.expires_at);
const at = (ms: number) => new Date(ms);

describe('event builders', () => {
  it('carry ids, times and public fields only, never the digest or the hint', () => {
    const now = at(Date.parse(record.created_at));
    const events = [
      keyCreated(record, userActor('alice'), now),
      keyRotated(record, 'b1b2c3d4-8a4b-4f5e-9d3c-2b1a0c9e7d61', userActor('alice'), now),
      keyRevoked(record, userActor('alice'), now),
      keyLeakRevoked(record, { type: 'public_report', id: null }, 'https://example.com/paste', now),
    ];
    expect(new Set(events.map((e) => e.id)).size).toBe(4);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(
        ['id', 'type', 'occurred_at', 'key_id', 'lineage_id', 'user_id', 'actor', 'details'].sort(),
      );
      expect(JSON.stringify(event)).not.toContain(record.digest);
      expect(JSON.stringify(event)).not.toContain('Q9xZ');
    }
    expect(events[0]?.details).toEqual({
      name: 'laptop',
      scopes: ['svc.forms.read'],
      workspace_ids: record.workspace_ids,
      expires_at: record.expires_at,
      rotated_from: null,
    });
    expect(events[3]?.details).toEqual({ source: 'https://example.com/paste' });
  });

  it('become EventBridge entries: source, detail-type = type, detail = the event, time = occurred_at', () => {
    const event = keyRevoked(record, userActor('alice'), at(expires - DAY));
    expect(toEntry(event, 'bus')).toEqual({
      EventBusName: 'bus',
      Source: 'svc.mcp-api-keys',
      DetailType: 'key.revoked',
      Detail: JSON.stringify(event),
      Time: at(expires - DAY),
    });
  });
});

describe('expiry notices', () => {
  it('are due at 7 days, 1 day and 0 days before the expiry, in that order', () => {
    expect(NOTICES.map((n) => [n.marker, n.daysBefore])).toEqual([
      ['notified_7', 7],
      ['notified_1', 1],
      ['notified_expired', 0],
    ]);
    expect(dueNotice(record.expires_at, at(expires - 7 * DAY - 1))).toBeUndefined();
    expect(dueNotice(record.expires_at, at(expires - 7 * DAY))?.marker).toBe('notified_7');
    expect(dueNotice(record.expires_at, at(expires - DAY - 1))?.marker).toBe('notified_7');
    expect(dueNotice(record.expires_at, at(expires - DAY))?.marker).toBe('notified_1');
    expect(dueNotice(record.expires_at, at(expires))?.marker).toBe('notified_expired');
  });

  it('schedule a key at its first threshold after creation, then each next one', () => {
    expect(firstNoticeAt(record)).toBe(at(expires - 7 * DAY).toISOString());
    const fiveDays = {
      created_at: record.created_at,
      expires_at: at(Date.parse(record.created_at) + 5 * DAY).toISOString(),
    };
    expect(firstNoticeAt(fiveDays)).toBe(at(Date.parse(fiveDays.expires_at) - DAY).toISOString());
    const oneDay = {
      created_at: record.created_at,
      expires_at: at(Date.parse(record.created_at) + DAY).toISOString(),
    };
    expect(firstNoticeAt(oneDay)).toBe(oneDay.expires_at);
    const [seven, one, expired] = NOTICES;
    if (!seven || !one || !expired) throw new Error('notices missing');
    expect(nextNoticeAt(seven, record.expires_at)).toBe(at(expires - DAY).toISOString());
    expect(nextNoticeAt(one, record.expires_at)).toBe(record.expires_at);
    expect(nextNoticeAt(expired, record.expires_at)).toBeUndefined();
    expect(markersFrom(one)).toEqual(['notified_1', 'notified_expired']);
  });
});

describe('stream records', () => {
  const event = keyRevoked(record, userActor('alice'), at(expires - DAY));
  const image = {
    pk: { S: `LINEAGE#${record.lineage_id}` },
    sk: { S: `EVENT#${event.occurred_at}#${event.id}` },
    ttl: { N: '1800000000' },
    id: { S: event.id },
    type: { S: 'key.revoked' },
    occurred_at: { S: event.occurred_at },
    key_id: { S: record.id },
    lineage_id: { S: record.lineage_id },
    user_id: { S: 'alice' },
    actor: { M: { type: { S: 'user' }, id: { S: 'alice' } } },
    details: { M: {} },
  };

  it('yield the inserted event as Lambda delivers it, and as the Streams SDK client reads it', () => {
    const lambda = streamItems([{ eventName: 'INSERT', dynamodb: { SequenceNumber: '7', NewImage: image } }]);
    expect(lambda).toEqual([{ position: '7', event }]);
    // The Streams SDK client reads an empty map attribute as `{}`.
    const sdk = streamItems([
      { eventName: 'INSERT', dynamodb: { SequenceNumber: '8', NewImage: { ...image, details: {} } } },
    ]);
    expect(sdk).toEqual([{ position: '8', event }]);
  });

  it('yield no event for key changes, modifications and TTL deletions', () => {
    const keyImage = { pk: { S: `KEY#${record.id}` }, sk: { S: 'KEY' }, digest: { S: record.digest } };
    const items = streamItems([
      { eventName: 'INSERT', dynamodb: { SequenceNumber: '1', NewImage: keyImage } },
      { eventName: 'MODIFY', dynamodb: { SequenceNumber: '2', NewImage: image } },
      { eventName: 'REMOVE', dynamodb: { SequenceNumber: '3' } },
      {
        eventName: 'INSERT',
        dynamodb: { SequenceNumber: '4', NewImage: { pk: { S: 'USER#a' }, active: {} } },
      },
    ]);
    expect(items).toEqual([
      { position: '1', event: undefined },
      { position: '2', event: undefined },
      { position: '3', event: undefined },
      { position: '4', event: undefined },
    ]);
  });
});
