import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyRecord } from '#lib/keys/model';
import { conditionParams, itemIsNew } from './conditions.ts';
import { KEY_SK, keyPk } from './items.ts';
import { failedCondition, transact, unexpected } from './transactions.ts';
import { entryItem } from './workspace-items.ts';

/**
 * The workspace index for keys stored before it existed (contract §12). A deployment upgraded
 * from a version without workspace governance holds keys with no index entries: administrators
 * cannot list them or cut them off, and a workspace policy does not reach them. This writes the
 * entries those keys should have, one per workspace each key still reaches, exactly as create
 * and rotate write them; it is idempotent and safe beside live traffic.
 */

/** What an entry needs of its key (never the digest). */
export type EntrySource = Pick<
  KeyRecord,
  'id' | 'user_id' | 'lineage_id' | 'created_at' | 'expires_at' | 'scopes' | 'workspace_ids'
>;

const ENTRY_SOURCE: readonly (keyof EntrySource)[] = [
  'id',
  'user_id',
  'lineage_id',
  'created_at',
  'expires_at',
  'scopes',
  'workspace_ids',
];

/** `written`: the entry was missing and is now stored; `present`: it was there already; `changed`: the key no longer reaches the workspace (or is gone), so no entry is due. */
export type EntryOutcome = 'written' | 'present' | 'changed';

export interface BackfillSummary {
  /** Key items read. */
  keys: number;
  written: number;
  present: number;
  changed: number;
  /** The workspaces that gained at least one entry: their policies must be applied again. */
  workspaces: Set<string>;
}

export interface BackfillOptions {
  tableName: string;
  /** The deployment's `retentionDays`: entries are kept as long as their keys. */
  retentionDays: number;
  /** Parallel scan segments. @default 4 */
  segments?: number;
  /** Entry writes in flight per segment. @default 4 */
  concurrency?: number;
}

/**
 * Writes one key's entry in one workspace, in one transaction: on condition that the key still
 * holds the workspace (a cut-off since the key was read leaves it out) and that no entry exists
 * (an entry written by create, rotate or a cut-off is never overwritten).
 */
export async function backfillEntry(
  doc: DynamoDBDocumentClient,
  { tableName, retentionDays }: Pick<BackfillOptions, 'tableName' | 'retentionDays'>,
  key: EntrySource,
  workspaceId: string,
): Promise<EntryOutcome> {
  const outcome = await transact(doc, {
    TransactItems: [
      {
        ConditionCheck: {
          TableName: tableName,
          Key: { pk: keyPk(key.id), sk: KEY_SK },
          ConditionExpression: 'contains(workspace_ids, :ws)',
          ExpressionAttributeValues: { ':ws': workspaceId },
        },
      },
      {
        Put: {
          TableName: tableName,
          Item: entryItem(key, workspaceId, retentionDays),
          ...conditionParams(itemIsNew),
        },
      },
    ],
  });
  if (outcome.ok) return 'written';
  const [keyCheck, entryPut] = outcome.reasons;
  if (failedCondition(entryPut)) return 'present';
  if (failedCondition(keyCheck)) return 'changed';
  throw unexpected('workspace index backfill', outcome.reasons);
}

/** Every key item of the table, one scan segment's pages at a time, without the digest. */
async function* keyItems(
  doc: DynamoDBDocumentClient,
  tableName: string,
  segment: number,
  segments: number,
): AsyncGenerator<EntrySource[]> {
  const names = Object.fromEntries(ENTRY_SOURCE.map((name, i) => [`#a${i}`, name]));
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        Segment: segment,
        TotalSegments: segments,
        FilterExpression: 'sk = :key AND begins_with(pk, :prefix)',
        ProjectionExpression: Object.keys(names).join(', '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':key': KEY_SK, ':prefix': keyPk('') },
        ExclusiveStartKey: start,
      }),
    );
    yield (page.Items ?? []) as EntrySource[];
    start = page.LastEvaluatedKey;
  } while (start);
}

/** Writes the missing entries of every key in the table; run again, it writes nothing. */
export async function backfillWorkspaceIndex(
  doc: DynamoDBDocumentClient,
  options: BackfillOptions,
): Promise<BackfillSummary> {
  const { segments = 4, concurrency = 4 } = options;
  const summary: BackfillSummary = { keys: 0, written: 0, present: 0, changed: 0, workspaces: new Set() };
  const scanSegment = async (segment: number) => {
    for await (const keys of keyItems(doc, options.tableName, segment, segments)) {
      summary.keys += keys.length;
      const pending = keys.flatMap((key) => key.workspace_ids.map((workspaceId) => ({ key, workspaceId })));
      const worker = async () => {
        for (let next = pending.shift(); next; next = pending.shift()) {
          const outcome = await backfillEntry(doc, options, next.key, next.workspaceId);
          summary[outcome]++;
          if (outcome === 'written') summary.workspaces.add(next.workspaceId);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    }
  };
  await Promise.all(Array.from({ length: segments }, (_, segment) => scanSegment(segment)));
  return summary;
}
