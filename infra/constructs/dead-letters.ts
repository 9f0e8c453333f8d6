import { Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { acknowledgeGuardRule, GUARD_EXCEPTIONS } from '../guard.ts';
import type { ServiceAlarms } from './alarms.ts';

export interface StreamDeadLettersProps {
  /** What the queue catches batches of, for cdk-nag's acknowledgement: "the policy fan-out". */
  consumer: string;
  alarms: ServiceAlarms;
  /** The alarm on the first message, and what it means (its runbook entry is its id). */
  alarmId: string;
  description: string;
}

/**
 * The dead-letter queue of a stream consumer: the batches its event source mapping gave up on
 * after its retries, kept 14 days, encrypted, TLS only, with an alarm on the first message. It has
 * no dead-letter queue of its own (`GUARD_EXCEPTIONS.deadLetterQueueWithoutDeadLetterQueue`).
 */
export function streamDeadLetters(scope: Construct, id: string, props: StreamDeadLettersProps): Queue {
  const queue = new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  acknowledgeGuardRule(queue, GUARD_EXCEPTIONS.deadLetterQueueWithoutDeadLetterQueue);
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is itself the dead-letter destination of ${props.consumer}.`,
  });
  props.alarms.add(props.alarmId, {
    description: props.description,
    metric: queue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: 'Maximum',
    }),
    threshold: 0,
  });
  return queue;
}
