import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_MS } from '#lib/limits';
import type { UsageDay } from '#lib/usage/model';
import type { UsageWriter } from '#lib/usage/recorder';
import { dayCallsAttribute, KEY_SK, keyPk } from './key-item.ts';

/**
 * Usage in the keys table (contract §18; why this table: docs/decisions.md):
 *
 * | item                               | pk                   | sk                         |
 * |------------------------------------|----------------------|----------------------------|
 * | one instance's day of a credential | `USAGE#<credential>` | `DAY#<YYYY-MM-DD>#<inst>`  |
 *
 * One partition per credential: its usage over a range of days is one Query. Each function
 * instance puts its own item whole (the day's counts hour by hour), so a write never reads and
 * never needs an increment of a nested map. The keys table's stream filters let these writes by.
 * Alongside, the calls of the day are added to the credential's own item (`calls_on_<day>`, its
 * last two weeks, key-item.ts): the list reads every item's `calls_7d` with the page itself.
 */
export const USAGE_PREFIX = 'USAGE#';
export const usagePk = (credentialId: string): string => `${USAGE_PREFIX}${credentialId}`;
export const usageSk = (day: string, instance: string): string => `DAY#${day}#${instance}`;
/** The sort keys from `fromDay` to `toDay` inclusive, every instance's. */
export const usageSkRange = (fromDay: string, toDay: string) =>
  [`DAY#${fromDay}#`, `DAY#${toDay}#~`] as const;

/** The attributes a usage item has: what the verifier's role may write, and nothing more. */
export const USAGE_ATTRIBUTES = [
  'pk',
  'sk',
  'credential_id',
  'kind',
  'user_id',
  'client_id',
  'day',
  'instance',
  'hours',
  'calls',
  'ttl',
] as const;

/** The stored item of an instance's day; kept `retentionDays` after the day's end. */
export function usageItem(day: UsageDay, retentionDays: number): Record<string, unknown> {
  return {
    ...day,
    pk: usagePk(day.credential_id),
    sk: usageSk(day.day, day.instance),
    ttl: ttlOfDay(day.day, retentionDays),
  };
}

/** The day from its stored item. */
export function fromUsageItem(item: Record<string, unknown>): UsageDay {
  const { pk: _pk, sk: _sk, ttl: _ttl, ...day } = item;
  return day as unknown as UsageDay;
}

/** Epoch seconds `retentionDays` after a day's end, as DynamoDB TTL reads them. */
const ttlOfDay = (day: string, retentionDays: number) =>
  // items.ts's ttlAfter, which the verifier does not import.
  Math.floor((Date.parse(`${day}T00:00:00.000Z`) + (retentionDays + 1) * DAY_MS) / 1000);

/**
 * The verifier's side, nothing read back: one PutItem of an instance's day per write, and the
 * calls it adds to the credential's own count of the day (an UpdateItem of the key item: `ADD`
 * of that day, `REMOVE` of the days two weeks back, so the item never keeps more than a fortnight).
 */
export class DynamoUsageWriter implements UsageWriter {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly retentionDays: number,
  ) {}

  async putDay(day: UsageDay): Promise<void> {
    await this.doc.send(
      new PutCommand({ TableName: this.tableName, Item: usageItem(day, this.retentionDays) }),
    );
  }

  async addCalls(credentialId: string, day: string, calls: number): Promise<void> {
    const stale = staleDays(day);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: keyPk(credentialId), sk: KEY_SK },
          UpdateExpression: `ADD #day :calls REMOVE ${stale.map((_, i) => `#stale${i}`).join(', ')}`,
          // A key TTL removed is not made again.
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: {
            '#day': dayCallsAttribute(day),
            ...Object.fromEntries(stale.map((d, i) => [`#stale${i}`, dayCallsAttribute(d)])),
          },
          ExpressionAttributeValues: { ':calls': calls },
        }),
      );
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }
}

/** The days whose counts a write for `day` removes: 8 to 14 days before it. */
function staleDays(day: string): string[] {
  const at = Date.parse(`${day}T00:00:00.000Z`);
  return Array.from({ length: 7 }, (_, i) => new Date(at - (8 + i) * DAY_MS).toISOString().slice(0, 10));
}
