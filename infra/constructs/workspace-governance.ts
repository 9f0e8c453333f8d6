import { Duration } from 'aws-cdk-lib';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, type IFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { APPLY_WORKSPACE_POLICY_GRANTS } from '#lib/handlers/apply-workspace-policy';
import type { GrantTarget } from '#lib/routes/route-module';
import { WORKSPACE_PREFIX } from '#lib/store/workspace-items';
import type { ServiceAlarms } from './alarms.ts';
import { streamDeadLetters } from './dead-letters.ts';
import { grantDynamo } from './grants.ts';
import { ServiceFunction } from './service-function.ts';

/** `WorkspaceGovernance`'s props: the keys table whose stream it reads, and its grants. */
export interface WorkspaceGovernanceProps {
  /** The keys table (`StatefulStack.keysTable`): its stream starts the fan-out. */
  keysTable: ITableV2;
  /** The ARNs a grant's targets name (the stack's tables and index). */
  tables: Record<GrantTarget, string>;
  /** The administrators' route functions (their modules' tag is `workspaces`); their throttles get one alarm. */
  routeFunctions: IFunction[];
  /** The fan-out's environment (tables, settings). */
  environment: Record<string, string>;
  /** @default 30 */
  logRetentionDays?: number;
  /** `GovernanceThrottles`, `PolicyFanOutErrors` and `PolicyFanOutDeadLetters` join them. */
  alarms: ServiceAlarms;
}

/** The stream records that start a policy fan-out (and that the publisher publishes). */
export const POLICY_CHANGED_FILTER = FilterCriteria.filter({
  eventName: FilterRule.isEqual('INSERT'),
  dynamodb: {
    NewImage: {
      pk: { S: FilterRule.beginsWith(WORKSPACE_PREFIX) },
      type: { S: FilterRule.isEqual('workspace.policy_changed') },
    },
  },
});

/**
 * Workspace governance (contract §12) beyond its routes (which the route modules declare): the
 * policy fan-out, a consumer of the keys table's stream with the grants its handler declares, and
 * the throttle alarm of the governance functions (the service-wide one sums at most ten).
 */
export class WorkspaceGovernance extends Construct {
  /** The function applying a workspace policy to the keys it reaches (functions/apply-workspace-policy.ts). */
  readonly fanOut: IFunction;

  constructor(scope: Construct, id: string, props: WorkspaceGovernanceProps) {
    super(scope, id);
    const { keysTable } = props;
    this.fanOut = new ServiceFunction(this, 'ApplyWorkspacePolicy', {
      entry: 'apply-workspace-policy',
      environment: props.environment,
      logRetentionDays: props.logRetentionDays,
      timeout: Duration.minutes(5),
    }).fn;
    grantDynamo(this.fanOut, APPLY_WORKSPACE_POLICY_GRANTS, props.tables);
    this.addFanOutSource(keysTable, props.alarms);

    const minute = Duration.minutes(1);
    const throttles = Object.fromEntries(
      [...props.routeFunctions, this.fanOut].map((fn, i) => [
        `f${i}`,
        fn.metricThrottles({ period: minute }),
      ]),
    );
    props.alarms.add('GovernanceThrottles', {
      description: 'A workspace governance function was throttled.',
      metric: new MathExpression({
        expression: Object.keys(throttles).join(' + '),
        usingMetrics: throttles,
        period: minute,
        label: 'Governance Lambda throttles',
      }),
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
    props.alarms.add('PolicyFanOutErrors', {
      description: 'The policy fan-out failed (the stream delivers the change again).',
      metric: this.fanOut.metricErrors({ period: minute }),
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
  }

  /** `workspace.policy_changed` items of the stream reach the fan-out; what it cannot do goes to a queue. */
  private addFanOutSource(keysTable: ITableV2, alarms: ServiceAlarms): void {
    const deadLetters = streamDeadLetters(this, 'FanOutDeadLetters', {
      consumer: 'the policy fan-out',
      alarms,
      alarmId: 'PolicyFanOutDeadLetters',
      description:
        'A policy change was given up on after all retries: keys the policy refuses may still reach the workspace.',
    });
    this.fanOut.addEventSource(
      new DynamoEventSource(keysTable, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 10,
        bisectBatchOnError: true,
        retryAttempts: 10,
        maxRecordAge: Duration.hours(24),
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(deadLetters),
        filters: [POLICY_CHANGED_FILTER],
      }),
    );
  }
}
