import { Duration } from 'aws-cdk-lib';
import { CfnStage, type HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ROUTES, routeKey } from '../routes.ts';
import { ServiceAlarms } from './alarms.ts';

export interface LeakResponseProps {
  /** The functions of the two leak routes. */
  reportFunction: IFunction;
  githubFunction: IFunction;
  keysTable: ITableV2;
  /** The HTTP API's stage, on which each leak route gets its own throttling. */
  stage: HttpStage;
  /** Each leak route's steady requests per second and burst. */
  throttle: { rateLimit: number; burstLimit: number };
  alarms: ServiceAlarms;
}

/**
 * The unauthenticated leak routes' surroundings (contract §11): their own throttling, exactly the
 * table calls a leak revocation makes, and the alarms on forged GitHub reports and report surges.
 */
export class LeakResponse extends Construct {
  constructor(scope: Construct, id: string, props: LeakResponseProps) {
    super(scope, id);
    const leakRoutes = ROUTES.filter(
      (r) => r.handler === 'report-leaked-keys' || r.handler === 'github-secret-scanning',
    );
    const cfnStage = props.stage.node.defaultChild;
    if (!(cfnStage instanceof CfnStage)) throw new Error('the HTTP API stage has no CfnStage');
    // RouteSettings is a JSON map of route key to CloudFormation route settings.
    cfnStage.routeSettings = Object.fromEntries(
      leakRoutes.map((r) => [
        routeKey(r),
        { ThrottlingRateLimit: props.throttle.rateLimit, ThrottlingBurstLimit: props.throttle.burstLimit },
      ]),
    );

    // A leak revocation reads the key and, in one transaction, revokes it, frees its slot and
    // writes its event.
    for (const fn of [props.reportFunction, props.githubFunction]) {
      fn.addToRolePolicy(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
          resources: [props.keysTable.tableArn],
        }),
      );
    }

    const fiveMinutes = Duration.minutes(5);
    props.alarms.add('GithubSignatureFailures', {
      description: 'Requests to the GitHub secret scanning endpoint failed signature checks above a rate.',
      metric: ServiceAlarms.serviceCount('GithubSignatureFailures', { period: fiveMinutes }),
      threshold: 10,
    });
    props.alarms.add('LeakReportsSurge', {
      description: 'Leak reports arrive far above their usual rate: a bulk leak, or the endpoint is abused.',
      metric: ServiceAlarms.serviceCount('LeakReports', { period: fiveMinutes }),
      threshold: 300,
    });
  }
}
