import { Duration } from 'aws-cdk-lib';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, type IEventBus, Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, type IFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LINEAGE_PREFIX } from '#lib/store/items';
import { BY_EXPIRY } from '#lib/store/tables';
import { ServiceAlarms } from './alarms.ts';
import { streamDeadLetters } from './dead-letters.ts';
import { ServiceFunction } from './service-function.ts';
import { POLICY_CHANGED_FILTER } from './workspace-governance.ts';

/** What `EventPublishing` publishes from and reports to. */
export interface EventPublishingProps {
  /** The keys table, with its stream. */
  keysTable: ITableV2;
  /** The functions' environment (tables, settings); the sweep reads it. */
  environment: Record<string, string>;
  /** @default 30 */
  logRetentionDays?: number;
  /** The EventBridge bus events are published to. @default the account's default bus */
  eventBusName?: string;
  /** The service's alarms: `EventPublishFailures`, `EventDeadLetters`, `ExpirySweepFailures` join them. */
  alarms: ServiceAlarms;
}

/**
 * Events out to the world (contract §10): the stream consumer that publishes each new event item
 * to EventBridge (an event source mapping with a filter, retries, bisection, partial batch
 * responses and an SQS dead-letter queue), the hourly expiry sweep, and their alarms.
 */
export class EventPublishing extends Construct {
  /** The stream consumer that publishes each new event item (`functions/publish-events.ts`). */
  readonly publisher: IFunction;
  /** The hourly expiry sweep (`functions/expiry-sweep.ts`). */
  readonly sweep: IFunction;
  /** Where the event source mapping sends a batch it gave up on; alarmed on its first message. */
  readonly deadLetters: Queue;
  /** The EventBridge bus events are published to. */
  readonly bus: IEventBus;

  constructor(scope: Construct, id: string, props: EventPublishingProps) {
    super(scope, id);
    const { keysTable } = props;
    this.bus = EventBus.fromEventBusName(this, 'Bus', props.eventBusName ?? 'default');

    this.publisher = new ServiceFunction(this, 'PublishEvents', {
      entry: 'publish-events',
      environment: { EVENT_BUS_NAME: this.bus.eventBusName },
      logRetentionDays: props.logRetentionDays,
      timeout: Duration.seconds(60),
    }).fn;
    this.publisher.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['events:PutEvents'],
        resources: [this.bus.eventBusArn],
      }),
    );

    this.deadLetters = streamDeadLetters(this, 'DeadLetters', {
      consumer: 'the stream consumer',
      alarms: props.alarms,
      alarmId: 'EventDeadLetters',
      description: 'Stream records were given up on after all retries: their events were not published.',
    });
    // Lambda reads the stream (ListStreams and the read actions on this stream only, granted by
    // the event source) and sends what it cannot deliver to the queue after its retries.
    this.publisher.addEventSource(
      new DynamoEventSource(keysTable, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        parallelizationFactor: 1,
        bisectBatchOnError: true,
        retryAttempts: 10,
        maxRecordAge: Duration.hours(24),
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.deadLetters),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { pk: { S: FilterRule.beginsWith(LINEAGE_PREFIX) } } },
          }),
          // Workspace events (contract §12); the history's copies of key events are not published twice.
          POLICY_CHANGED_FILTER,
        ],
      }),
    );

    this.sweep = new ServiceFunction(this, 'ExpirySweep', {
      entry: 'expiry-sweep',
      environment: props.environment,
      logRetentionDays: props.logRetentionDays,
      timeout: Duration.minutes(5),
    }).fn;
    const allow = (actions: string[], resources: string[]) =>
      this.sweep.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions, resources }));
    allow(['dynamodb:Query'], [`${keysTable.tableArn}/index/${BY_EXPIRY.indexName}`]);
    // A notice is one TransactWriteItems: the key's update and the event's put.
    allow(['dynamodb:UpdateItem', 'dynamodb:PutItem'], [keysTable.tableArn]);
    new Rule(this, 'HourlySweep', {
      description: 'Runs the expiry sweep (key.expiring and key.expired events)',
      schedule: Schedule.rate(Duration.hours(1)),
      // The sweep is idempotent: a retried or overlapping run writes nothing twice.
      targets: [new LambdaFunction(this.sweep, { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
    });

    this.addAlarms(props.alarms);
  }

  /** The consumer's and the sweep's alarms, notifying the service's topic (docs/operations.md). */
  private addAlarms(alarms: ServiceAlarms): void {
    const minute = Duration.minutes(1);
    const publishFailures = new MathExpression({
      // Errors, batches that reported an undelivered record, or records waiting over 5 minutes.
      expression: 'FILL(errors, 0) + FILL(failed, 0) + IF(FILL(age, 0) > 300000, 1, 0)',
      usingMetrics: {
        errors: this.publisher.metricErrors({ period: minute }),
        failed: ServiceAlarms.serviceCount('EventPublishFailures', { period: minute }),
        age: this.publisher.metric('IteratorAge', { statistic: 'Maximum', period: minute }),
      },
      period: minute,
      label: 'Event publishing failures',
    });
    alarms.add('EventPublishFailures', {
      description: 'Events could not be published to EventBridge, or the stream consumer is falling behind.',
      metric: publishFailures,
      threshold: 0,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
    });
    alarms.add('ExpirySweepFailures', {
      description: 'The hourly expiry sweep failed: expiring and expired notices are late.',
      metric: this.sweep.metricErrors({ period: Duration.hours(1) }),
      threshold: 0,
    });
  }
}
