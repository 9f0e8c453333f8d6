import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { WorkspaceRules } from '#lib/access/tools';
import { KEY_SK, keyPk } from './key-item.ts';

const failed = (err: unknown) => err instanceof ConditionalCheckFailedException;

/**
 * What a workspace's policy leaves a credential there (contract §19), written into its item's
 * `workspace_rules` map by the policy fan-out: the workspace's entry set (the map made when the
 * item has none) or removed. Each write is conditional on the item existing, so a credential
 * deleted meanwhile is not recreated; two fan-outs of two workspaces never overwrite each other's
 * entry, as each writes its own path.
 */
export async function writeWorkspaceRules(
  doc: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  workspaceId: string,
  rules: WorkspaceRules | undefined,
): Promise<void> {
  const Key = { pk: keyPk(keyId), sk: KEY_SK };
  const names = { '#rules': 'workspace_rules', '#ws': workspaceId };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key,
          UpdateExpression: rules ? 'SET #rules.#ws = :rules' : 'REMOVE #rules.#ws',
          ConditionExpression: 'attribute_exists(pk) AND attribute_exists(#rules)',
          ExpressionAttributeNames: names,
          ...(rules && { ExpressionAttributeValues: { ':rules': rules } }),
        }),
      );
      return;
    } catch (err) {
      if (!failed(err)) throw err;
    }
    // No map yet (or no item): nothing to remove; else the map made with this workspace's entry.
    if (!rules) return;
    try {
      await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key,
          UpdateExpression: 'SET #rules = :map',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#rules)',
          ExpressionAttributeNames: { '#rules': 'workspace_rules' },
          ExpressionAttributeValues: { ':map': { [workspaceId]: rules } },
        }),
      );
      return;
    } catch (err) {
      if (!failed(err)) throw err;
      // Gone, or another fan-out made the map first: try the entry again (a gone item fails both).
    }
  }
}
