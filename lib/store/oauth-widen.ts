import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { KeyEvent } from '#lib/events/model';
import type { KeyRecord } from '#lib/keys/model';
import type { AuthorizationRequest } from '#lib/oauth/model';
import type { GrantWidening } from '#lib/oauth/port';
import { conditionParams, itemIsNew } from './conditions.ts';
import { KEY_SK, keyPk } from './key-item.ts';
import type { DynamoKeyStore } from './keys-store.ts';
import { requestKey } from './oauth-items.ts';
import { failedCondition, transact, unexpected } from './transactions.ts';
import { entryItem, entrySk, workspacePk } from './workspace-items.ts';

interface Widening {
  request: AuthorizationRequest;
  grant: KeyRecord;
  widening: GrantWidening;
  events: readonly KeyEvent[];
  now: Date;
}

/** The grant's update (`workspace_ids`: all of them after the widening). */
function grantUpdate(tableName: string, grant: KeyRecord, widening: GrantWidening, now: Date) {
  return {
    Update: {
      TableName: tableName,
      Key: { pk: keyPk(grant.id), sk: KEY_SK },
      // The tools the person left ticked (none listed: every tool), the policies' rules now.
      UpdateExpression: `SET scopes = :scopes, workspace_ids = :workspaces, #g.code = :code, #g.redirect_uri = :uri, #g.redirect_host = :host${widening.workspace_rules ? ', workspace_rules = :rules' : ''}${widening.tools ? ', tools = :tools' : ' REMOVE tools'}`,
      // Unrevoked, unexpired and as it was read: a concurrent change is the caller's to decide again.
      ConditionExpression:
        'attribute_exists(pk) AND attribute_not_exists(revoked_at) AND expires_at > :now AND scopes = :read AND workspace_ids = :read_workspaces',
      ExpressionAttributeNames: { '#g': 'grant' },
      ExpressionAttributeValues: {
        ':scopes': widening.scopes,
        ':workspaces': widening.workspace_ids,
        ':read_workspaces': grant.workspace_ids,
        ':code': widening.code,
        ':uri': widening.redirect_uri,
        ':host': widening.redirect_host,
        ':now': now.toISOString(),
        ':read': grant.scopes,
        ...(widening.workspace_rules && { ':rules': widening.workspace_rules }),
        ...(widening.tools && { ':tools': widening.tools }),
      },
    },
  };
}

/**
 * A grant widened by an approval (a sign-in again, contract §15 and §17), in one transaction: the
 * request marked approved and pointed at the grant, the grant's scopes, workspaces, tools, rules
 * and new code, the workspace index entries, and the events. `DynamoOAuthStore.widen`'s body.
 */
export async function widenGrant(
  doc: DynamoDBDocumentClient,
  { tableName, keys }: { tableName: string; keys: DynamoKeyStore },
  { request, grant, widening, events, now }: Widening,
): Promise<'widened' | 'already_decided' | 'grant_changed'> {
  const added = widening.workspace_ids.filter((id) => !grant.workspace_ids.includes(id));
  const outcome = await transact(doc, {
    TransactItems: [
      {
        Update: {
          TableName: tableName,
          Key: requestKey(request.id),
          UpdateExpression: 'SET decision = :approved, grant_id = :grant',
          ConditionExpression: 'attribute_exists(pk) AND user_id = :user AND attribute_not_exists(decision)',
          ExpressionAttributeValues: {
            ':approved': 'approved',
            ':grant': grant.id,
            ':user': grant.user_id,
          },
        },
      },
      grantUpdate(tableName, grant, { ...widening, workspace_ids: [...grant.workspace_ids, ...added] }, now),
      // The workspace index keeps a copy of the scopes, which the policy fan-out reads.
      ...grant.workspace_ids.map((workspaceId) => ({
        Update: {
          TableName: tableName,
          Key: { pk: workspacePk(workspaceId), sk: entrySk(grant.created_at, grant.id) },
          UpdateExpression: 'SET scopes = :scopes',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':scopes': widening.scopes },
        },
      })),
      // A workspace added: its entry, as a new key's (the grant's scopes after the widening).
      ...added.map((workspaceId) => ({
        Put: {
          TableName: tableName,
          Item: entryItem({ ...grant, scopes: widening.scopes }, workspaceId, keys.retentionDays),
          ...conditionParams(itemIsNew),
        },
      })),
      ...keys.eventPuts(events, grant),
    ],
  });
  if (outcome.ok) return 'widened';
  const [requestReason, grantReason] = outcome.reasons;
  if (failedCondition(requestReason)) return 'already_decided';
  if (failedCondition(grantReason)) return 'grant_changed';
  throw unexpected('widen', outcome.reasons);
}
