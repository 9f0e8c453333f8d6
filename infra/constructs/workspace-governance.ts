import { Duration, Validations } from 'aws-cdk-lib';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, FilterRule, type IFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WORKSPACE_PREFIX } from '#lib/store/workspace-items';
import { acknowledgeGuardRule, GUARD_EXCEPTIONS } from '../guard.ts';
import type { ServiceAlarms } from './alarms.ts';
import { ServiceFunction } from './service-function.ts';

export interface WorkspaceGovernanceProps {
  keysTable: ITableV2;
  membershipsTable: ITableV2;
  pepperKey: IKey;
  /** The management functions' environment (tables, settings). */
  environment: Record<string, string>;
  /** @default 30 */
  logRetentionDays?: number;
  /** `GovernanceThrottles` joins them. */
  alarms: ServiceAlarms;
}

/** The routes' handlers this construct provides, by file in functions/. */
export type GovernanceHandler =
  | 'list-workspace-keys'
  | 'cut-off-key'
  | 'list-workspace-events'
  | 'get-workspace-policy'
  | 'put-workspace-policy';

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

const pascal = (s: string) => s.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());

/**
 * Workspace governance (contract §12): the administrators' functions and the policy fan-out (a
 * consumer of the keys table's stream), each with exactly the calls it makes, and their throttle
 * alarm (the service-wide one sums at most ten functions).
 */
export class WorkspaceGovernance extends Construct {
  readonly functions: Record<GovernanceHandler, IFunction>;
  readonly fanOut: IFunction;

  constructor(scope: Construct, id: string, props: WorkspaceGovernanceProps) {
    super(scope, id);
    const { keysTable, membershipsTable, pepperKey } = props;
    const make = (entry: string, options: { derivesPepper?: boolean; timeout?: Duration } = {}) =>
      new ServiceFunction(this, pascal(entry), {
        entry,
        environment: props.environment,
        logRetentionDays: props.logRetentionDays,
        ...(options.derivesPepper && { pepperKey }),
        ...(options.timeout && { timeout: options.timeout }),
      }).fn;
    // Only the paged reads derive the pepper: their cursors' MAC keys come from it.
    const fns = {
      'list-workspace-keys': make('list-workspace-keys', { derivesPepper: true }),
      'cut-off-key': make('cut-off-key'),
      'list-workspace-events': make('list-workspace-events', { derivesPepper: true }),
      'get-workspace-policy': make('get-workspace-policy'),
      'put-workspace-policy': make('put-workspace-policy'),
    };
    this.functions = fns;
    this.fanOut = make('apply-workspace-policy', { timeout: Duration.minutes(5) });

    const keys = keysTable.tableArn;
    const allow = (
      fn: IFunction,
      actions: string[],
      resources: string[],
      conditions?: Record<string, unknown>,
    ) =>
      fn.addToRolePolicy(
        new PolicyStatement({ effect: Effect.ALLOW, actions, resources, ...(conditions && { conditions }) }),
      );
    const workspacePartitions = {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${WORKSPACE_PREFIX}*`] },
    };
    // Every call first reads the caller's role in the workspace.
    for (const fn of Object.values(fns)) allow(fn, ['dynamodb:BatchGetItem'], [membershipsTable.tableArn]);
    // A page: one Query of the workspace's partition, one BatchGetItem of its keys.
    allow(fns['list-workspace-keys'], ['dynamodb:Query'], [keys], workspacePartitions);
    allow(fns['list-workspace-keys'], ['dynamodb:BatchGetItem'], [keys]);
    // The key, its entry and its successors are read; one transaction updates and puts.
    allow(fns['cut-off-key'], ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'], [keys]);
    allow(fns['list-workspace-events'], ['dynamodb:Query'], [keys], workspacePartitions);
    allow(fns['get-workspace-policy'], ['dynamodb:GetItem'], [keys]);
    // PUT reads the policy and counts the keys it refuses, then writes the policy and its event.
    allow(
      fns['put-workspace-policy'],
      ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchGetItem'],
      [keys],
    );
    allow(fns['put-workspace-policy'], ['dynamodb:Query'], [keys], workspacePartitions);
    // The fan-out reads the policy and the workspace's keys, and cuts off (updates and puts).
    allow(this.fanOut, ['dynamodb:Query'], [keys], workspacePartitions);
    allow(
      this.fanOut,
      ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
      [keys],
    );
    this.addFanOutSource(keysTable);

    const minute = Duration.minutes(1);
    const throttles = Object.fromEntries(
      [...Object.values(fns), this.fanOut].map((fn, i) => [`f${i}`, fn.metricThrottles({ period: minute })]),
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
  private addFanOutSource(keysTable: ITableV2): void {
    const deadLetters = new Queue(this, 'FanOutDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledgeGuardRule(deadLetters, GUARD_EXCEPTIONS.deadLetterQueueWithoutDeadLetterQueue);
    Validations.of(deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the dead-letter destination of the policy fan-out.',
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
