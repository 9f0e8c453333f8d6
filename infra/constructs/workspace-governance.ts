import { Duration } from 'aws-cdk-lib';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { WORKSPACE_PREFIX } from '#lib/store/workspace-items';
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
export type GovernanceHandler = 'list-workspace-keys' | 'cut-off-key' | 'list-workspace-events';

/**
 * Workspace governance (contract §12): the administrators' functions, each with exactly the
 * calls it makes, and their throttle alarm (the service-wide one sums at most ten functions).
 */
export class WorkspaceGovernance extends Construct {
  readonly functions: Record<GovernanceHandler, IFunction>;

  constructor(scope: Construct, id: string, props: WorkspaceGovernanceProps) {
    super(scope, id);
    const { keysTable, membershipsTable, pepperKey } = props;
    const make = (entry: GovernanceHandler, derivesPepper: boolean) =>
      new ServiceFunction(
        this,
        entry.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase()),
        {
          entry,
          environment: props.environment,
          logRetentionDays: props.logRetentionDays,
          ...(derivesPepper && { pepperKey }),
        },
      ).fn;
    // Only the paged reads derive the pepper: their cursors' MAC keys come from it.
    const fns = {
      'list-workspace-keys': make('list-workspace-keys', true),
      'cut-off-key': make('cut-off-key', false),
      'list-workspace-events': make('list-workspace-events', true),
    };
    this.functions = fns;

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

    const minute = Duration.minutes(1);
    const throttles = Object.fromEntries(
      Object.values(fns).map((fn, i) => [`f${i}`, fn.metricThrottles({ period: minute })]),
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
  }
}
