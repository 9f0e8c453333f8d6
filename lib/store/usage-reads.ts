import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { UsageDay } from '#lib/usage/model';
import type { UsageReader } from '#lib/usage/report';
import { fromUsageItem, usagePk, usageSkRange } from './usage-items.ts';

/** The API's side: a credential's days over a range, every instance's items. */
export class DynamoUsageReader implements UsageReader {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async daysOf(credentialId: string, fromDay: string, toDay: string): Promise<UsageDay[]> {
    const [from, to] = usageSkRange(fromDay, toDay);
    const days: UsageDay[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': usagePk(credentialId), ':from': from, ':to': to },
          ExclusiveStartKey: startKey,
        }),
      );
      days.push(...(out.Items ?? []).map(fromUsageItem));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return days;
  }
}
