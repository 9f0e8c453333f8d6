import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_MS } from '#lib/limits';
import type { UsageDay } from '#lib/usage/model';
import type { UsageWriter } from '#lib/usage/recorder';

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
    // Epoch seconds, as DynamoDB TTL reads them (items.ts's ttlAfter, which the verifier does not import).
    ttl: Math.floor((Date.parse(`${day.day}T00:00:00.000Z`) + (retentionDays + 1) * DAY_MS) / 1000),
  };
}

/** The day from its stored item. */
export function fromUsageItem(item: Record<string, unknown>): UsageDay {
  const { pk: _pk, sk: _sk, ttl: _ttl, ...day } = item;
  return day as unknown as UsageDay;
}

/** The verifier's side: one PutItem per write, nothing read back. */
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
}
