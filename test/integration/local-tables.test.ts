import { randomBytes } from 'node:crypto';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  dropTables,
  ensureTables,
  KEYS_TABLE_NAME,
  MEMBERSHIPS_TABLE_NAME,
} from '#infra/local/emulation/tables';
import { createDocumentClient } from '#lib/store/client';

/**
 * Local mode's tables in a DynamoDB Local it shares (`DYNAMODB_LOCAL_URL`): a database of their
 * own (a fresh access key id here, as a throwaway run has), made and, for a throwaway run, dropped.
 */
const shared = new URL(inject('dynamoEndpoint'));
const doc = createDocumentClient({
  region: 'us-east-1',
  endpoint: `http://${randomBytes(24).toString('hex')}@${shared.host}`,
});
afterAll(() => doc.destroy());

const tableNames = async () => (await doc.send(new ListTablesCommand({}))).TableNames ?? [];

describe('local mode tables in a shared DynamoDB Local', () => {
  it('are made in a database of their own, and a throwaway run drops them on close', async () => {
    expect(await tableNames()).toEqual([]);
    await ensureTables(doc);
    expect((await tableNames()).sort()).toEqual([KEYS_TABLE_NAME, MEMBERSHIPS_TABLE_NAME].sort());
    await dropTables(doc);
    expect(await tableNames()).toEqual([]);
  });
});
