import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { describeError, logEventRedacted, logger, metrics } from '#lib/observability';
import type { Runtime } from '#lib/runtime';
import { streamItems } from '#lib/store/stream';
import { applyWorkspacePolicy } from '#lib/workspaces/policy';

/**
 * The policy fan-out (contract §12): a stream consumer of `workspace.policy_changed` events that
 * cuts off every active key the workspace's current policy refuses. A failure reports that record,
 * so the stream delivers it (and the ones after it) again; the fan-out is idempotent.
 */
export function applyWorkspacePolicyHandler({ governance }: Runtime) {
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(logEventRedacted)
    .use(logMetrics(metrics))
    .handler(async (event) => {
      for (const item of streamItems(event.Records)) {
        if (item.event?.type !== 'workspace.policy_changed') continue;
        const workspaceId = item.event.details.workspace_id;
        try {
          const cut = await applyWorkspacePolicy(governance, workspaceId);
          metrics.addMetric('KeysCutOffByPolicy', MetricUnit.Count, cut);
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
