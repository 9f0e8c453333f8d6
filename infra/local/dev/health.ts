import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { RETRY_AFTER_SECONDS } from '#lib/limits';

/** How long `GET /health` waits for DynamoDB before answering 503. */
export const HEALTH_TIMEOUT_MS = 1000;

export interface HealthAnswer {
  status: 200 | 503;
  body: { status: 'ok' | 'unavailable'; detail?: string };
  headers: Record<string, string>;
}

/**
 * `GET /health` (contract §8): asks DynamoDB about each table on every call, so it answers 200
 * only while DynamoDB answers and the tables are active, and 503 from the first failed probe
 * until DynamoDB answers again. Never cached.
 */
export function healthCheck(doc: DynamoDBDocumentClient, tableNames: readonly string[]) {
  return async (): Promise<HealthAnswer> => {
    try {
      const tables = await Promise.all(
        tableNames.map((TableName) =>
          doc.send(new DescribeTableCommand({ TableName }), {
            abortSignal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
          }),
        ),
      );
      if (tables.every((t) => t.Table?.TableStatus === 'ACTIVE')) {
        return { status: 200, body: { status: 'ok' }, headers: {} };
      }
      return unavailable('a table is not active');
    } catch {
      return unavailable('DynamoDB does not answer');
    }
  };
}

const unavailable = (detail: string): HealthAnswer => ({
  status: 503,
  body: { status: 'unavailable', detail },
  headers: { 'retry-after': RETRY_AFTER_SECONDS, 'cache-control': 'no-store' },
});
