import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { localEndpoint } from '#lib/store/client';

/**
 * Reads a table's stream in DynamoDB Local, as Lambda's event source mapping would deliver it:
 * every record after the last one this reader returned, in order.
 */
export function streamReader(endpoint: string, tableName: string) {
  const client = new DynamoDBStreamsClient({ region: 'us-east-1', ...localEndpoint(endpoint) });
  const after = new Map<string, string>();
  return {
    async next(): Promise<_Record[]> {
      const arn = (await client.send(new ListStreamsCommand({ TableName: tableName }))).Streams?.[0]
        ?.StreamArn;
      if (!arn) throw new Error(`table ${tableName} has no stream`);
      const shards = (await client.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription
        ?.Shards;
      const records: _Record[] = [];
      for (const shard of shards ?? []) {
        const id = shard.ShardId as string;
        const last = after.get(id);
        let iterator = (
          await client.send(
            new GetShardIteratorCommand({
              StreamArn: arn,
              ShardId: id,
              ...(last
                ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: last }
                : { ShardIteratorType: 'TRIM_HORIZON' }),
            }),
          )
        ).ShardIterator;
        while (iterator) {
          const out = await client.send(new GetRecordsCommand({ ShardIterator: iterator }));
          const batch = out.Records ?? [];
          if (batch.length === 0) break;
          records.push(...batch);
          after.set(id, batch.at(-1)?.dynamodb?.SequenceNumber as string);
          iterator = out.NextShardIterator;
        }
      }
      return records;
    },
    close: () => client.destroy(),
  };
}
