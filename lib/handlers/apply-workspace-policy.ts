import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { countMetric, describeError, logger } from '#lib/observability';
import type { Grants } from '#lib/routes/route-module';
import { QUERY_WORKSPACE } from '#lib/routes/workspace-route';
import type { Runtime } from '#lib/runtime';
import { streamItems } from '#lib/store/stream';
import { applyWorkspacePolicy } from '#lib/workspaces/policy';
import { observed } from './observed.ts';

/**
 * The policy fan-out (contract §12): a stream consumer of `workspace.policy_changed` events that
 * cuts off every active key the workspace's current policy refuses. A failure reports that record,
 * so the stream delivers it (and the ones after it) again; the fan-out is idempotent.
 */
export function applyWorkspacePolicyHandler({ governance }: Pick<Runtime, 'governance'>) {
  return observed<DynamoDBStreamEvent, DynamoDBBatchResponse>().handler(async (event) => {
    for (const item of streamItems(event.Records)) {
      if (item.event?.type !== 'workspace.policy_changed') continue;
      const workspaceId = item.event.details.workspace_id;
      try {
        const cut = await applyWorkspacePolicy(governance, workspaceId);
        countMetric('KeysCutOffByPolicy', {}, cut);
        logger.info('workspace policy applied', { workspace_id: workspaceId, cut_off: cut });
      } catch (error) {
        logger.error('workspace policy not applied; the stream delivers it again', {
          workspace_id: workspaceId,
          error: describeError(error),
        });
        return { batchItemFailures: [{ itemIdentifier: item.position }] };
      }
    }
    return { batchItemFailures: [] };
  });
}

/**
 * The fan-out's role: it reads the policy and the workspace's keys (its partition, then the keys
 * in batches) and cuts off (a transaction of updates and puts).
 */
export const APPLY_WORKSPACE_POLICY_GRANTS: Grants = {
  pepper: false,
  dynamodb: [
    QUERY_WORKSPACE,
    {
      actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
      on: ['keys'],
    },
  ],
};
