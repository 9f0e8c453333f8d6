import { Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '#lib/observability';

/** Where each alarm's runbook entry lives; the heading of the entry is the alarm's id. */
export const RUNBOOK = 'docs/operations.md';

/** Where `ServiceAlarms` notifies. */
export interface ServiceAlarmsProps {
  /** Notify this existing SNS topic (standard, not FIFO). @default a topic is created */
  topicArn?: string;
}

/** One alarm of `ServiceAlarms.add`. */
export interface ServiceAlarmProps {
  /** What the alarm means, in one sentence; the link to its runbook entry is appended. */
  description: string;
  /** What is watched (a metric or a metric math expression of at most 10 metrics). */
  metric: IMetric;
  /** The value compared with the metric (greater than it, by default, fires). */
  threshold: number;
  /** @default ComparisonOperator.GREATER_THAN_THRESHOLD */
  comparisonOperator?: ComparisonOperator;
  /** Periods of the metric that are evaluated. @default 1 */
  evaluationPeriods?: number;
  /** Breaching periods among them that fire the alarm. @default evaluationPeriods */
  datapointsToAlarm?: number;
  /** @default TreatMissingData.NOT_BREACHING (no traffic is not a failure) */
  treatMissingData?: TreatMissingData;
}

/**
 * The service's alarms and the SNS topic they notify. Every alarm made with `add` notifies the
 * topic when it fires and when it recovers, and names its runbook entry in docs/operations.md:
 *
 * ```ts
 * alarms.add('ExpirySweepFailures', { description: '…', metric: sweep.metricErrors(), threshold: 0 });
 * ```
 */
export class ServiceAlarms extends Construct {
  /** The SNS topic every alarm notifies: imported by `topicArn`, or created. */
  readonly topic: ITopic;
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps = {}) {
    super(scope, id);
    this.topic = props.topicArn ? Topic.fromTopicArn(this, 'Topic', props.topicArn) : this.createTopic();
    this.action = new SnsAction(this.topic);
  }

  /** Adds an alarm that notifies the topic on ALARM and on OK. `id` is its runbook entry's heading. */
  add(id: string, props: ServiceAlarmProps): Alarm {
    const evaluationPeriods = props.evaluationPeriods ?? 1;
    const alarm = new Alarm(this, id, {
      alarmDescription: `${props.description} Runbook: ${RUNBOOK}#${id.toLowerCase()}`,
      metric: props.metric,
      threshold: props.threshold,
      comparisonOperator: props.comparisonOperator ?? ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods,
      datapointsToAlarm: props.datapointsToAlarm ?? evaluationPeriods,
      treatMissingData: props.treatMissingData ?? TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    return alarm;
  }

  /**
   * A count the service publishes (lib/observability.ts): namespace SvcMcpApiKeys, the `service`
   * dimension plus `dimensions` (exactly those the code adds, or CloudWatch matches nothing),
   * summed per period.
   */
  static serviceCount(
    metricName: string,
    options: { period?: Duration; dimensions?: Record<string, string> } = {},
  ): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { service: SERVICE_NAME, ...options.dimensions },
      statistic: 'Sum',
      period: options.period ?? Duration.minutes(5),
    });
  }

  private createTopic(): Topic {
    const topic = new Topic(this, 'Topic', {
      displayName: 'svc-mcp-api-keys alarms',
      enforceSSL: true,
    });
    // The topic policy replaces SNS's default one: let CloudWatch alarms of this account publish.
    const { account, region, partition } = Stack.of(this);
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisAccount',
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
        },
      }),
    );
    Validations.of(topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names and metric values only, and CloudWatch cannot publish to a topic ' +
        'encrypted with the AWS managed SNS key; a customer managed key would cost more than what it protects.',
    });
    return topic;
  }
}
