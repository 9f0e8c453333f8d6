import { Duration } from 'aws-cdk-lib';
import { CfnStage, type HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Construct } from 'constructs';
import { ROUTES, routeKey } from '../api-edge.ts';
import { ServiceAlarms } from './alarms.ts';

export interface LeakResponseProps {
  /** The HTTP API's stage, on which each leak route gets its own throttling. */
  stage: HttpStage;
  /** Each leak route's steady requests per second and burst. */
  throttle: { rateLimit: number; burstLimit: number };
  alarms: ServiceAlarms;
}

/**
 * The unauthenticated leak routes' surroundings (contract §11): their own throttling (the routes
 * whose module asks for it; their grants are in their modules), and the alarms on forged GitHub reports and report surges.
 */
export class LeakResponse extends Construct {
  constructor(scope: Construct, id: string, props: LeakResponseProps) {
    super(scope, id);
    const leakRoutes = ROUTES.filter((r) => r.module?.throttle === 'leak-report');
    const cfnStage = props.stage.node.defaultChild;
    if (!(cfnStage instanceof CfnStage)) throw new Error('the HTTP API stage has no CfnStage');
    // RouteSettings is a JSON map of route key to CloudFormation route settings.
    cfnStage.routeSettings = Object.fromEntries(
      leakRoutes.map((r) => [
        routeKey(r),
        { ThrottlingRateLimit: props.throttle.rateLimit, ThrottlingBurstLimit: props.throttle.burstLimit },
      ]),
    );

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
