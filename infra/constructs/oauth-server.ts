import { Duration, Validations } from 'aws-cdk-lib';
import {
  CfnStage,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { SERVICE_NAME } from '#lib/observability';
import { OAUTH_ROUTES, type OAuthRoute, oauthRouteKey } from '../api-edge.ts';
import { acknowledgeGuardRule, GUARD_EXCEPTIONS } from '../guard.ts';
import { ServiceAlarms } from './alarms.ts';
import { fiveXxRate } from './operations.ts';
import { ACCESS_LOG_FORMAT, serviceLogGroup } from './service-function.ts';

/** Steady requests per second and burst. */
export interface Throttle {
  /** Steady requests per second. */
  rateLimit: number;
  /** Requests above the steady rate admitted at once. */
  burstLimit: number;
}

/** The OAuth function, the consent routes' functions, throttles, log retention and alarms. */
export interface OAuthServerProps {
  /** The OAuth protocol function (`functions/oauth.ts`). */
  handler: IFunction;
  /** The consent routes' functions: their throttles are alarmed on with the protocol function's. */
  consentFunctions: IFunction[];
  /** The stage's default throttling. */
  throttle: Throttle;
  /** The registration route's own throttling. */
  registrationThrottle: Throttle;
  /** The token route's own throttling. */
  tokenThrottle: Throttle;
  /** Days the access logs are kept. */
  logRetentionDays: number;
  /** The service's alarms: `OAuthApi5xxRate` and `OAuthThrottles` join them. */
  alarms: ServiceAlarms;
}

/**
 * The OAuth 2.1 authorization server's protocol endpoints (contract §15) on an HTTP API of their
 * own (`OAUTH_ROUTES` says why): discovery, authorization, registration, token and revocation,
 * all to one function and without an authorizer, with the registration and token routes throttled
 * on their own. Its URL is the issuer unless a custom domain is mapped to it.
 */
export class OAuthServer extends Construct {
  /** The OAuth API (an HTTP API with no CORS configuration: the function answers CORS). */
  readonly api: HttpApi;
  /** The API's own URL (`https://<id>.execute-api.<region>.amazonaws.com`), no trailing slash. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: OAuthServerProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      apiName: `${SERVICE_NAME}-oauth`,
      description: 'OAuth 2.1 authorization server for MCP clients',
      createDefaultStage: false,
    });
    this.url = this.api.apiEndpoint;
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(serviceLogGroup(this, 'AccessLogs', props.logRetentionDays)),
        format: ACCESS_LOG_FORMAT,
      },
    });
    this.addProtocolRoutes(props.handler);
    throttleRoutes(stage, { registration: props.registrationThrottle, token: props.tokenThrottle });
    acknowledgeGuardRule(this.api, GUARD_EXCEPTIONS.apiGatewayInvokePermission);
    this.addAlarms(props);
  }

  /** Every OAuth route to the one function, without an authorizer (the acknowledgements say why). */
  private addProtocolRoutes(handler: IFunction): void {
    const integration = new HttpLambdaIntegration('OAuth', handler);
    for (const route of OAUTH_ROUTES) {
      const [added] = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration,
      });
      if (!added) continue;
      acknowledgeGuardRule(added, GUARD_EXCEPTIONS.unauthenticatedRoutes);
      Validations.of(added).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'The OAuth protocol endpoints are what a client calls before it holds a credential (RFC 8414, 6749, 7591, 7009): the authorization request is decided by a signed-in person on the consent page, codes and tokens are checked by the function, and registration and token have their own throttles.',
      });
    }
  }

  /** `OAuthApi5xxRate`, `OAuthThrottles` and `IdentitySignalsRefused`, added to the service's alarms. */
  private addAlarms(props: OAuthServerProps): void {
    const minute = Duration.minutes(1);
    props.alarms.add('OAuthApi5xxRate', {
      description:
        'More than 1% of OAuth requests (authorize, token, registration, revocation) answered 5xx.',
      metric: fiveXxRate(
        this.api.metricCount({ period: minute }),
        this.api.metricServerError({ period: minute }),
      ),
      threshold: 1,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
    });
    // A metric math alarm takes at most 10 metrics: the OAuth functions' throttles have their own.
    const metrics = Object.fromEntries(
      [props.handler, ...props.consentFunctions].map((fn, i) => [
        `f${i}`,
        fn.metricThrottles({ period: minute }),
      ]),
    );
    props.alarms.add('OAuthThrottles', {
      description: 'An OAuth function (the protocol endpoints or the consent routes) was throttled.',
      metric: new MathExpression({
        expression: Object.keys(metrics).join(' + '),
        usingMetrics: metrics,
        period: minute,
        label: 'OAuth Lambda throttles',
      }),
      threshold: 0,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
    // A refused security event may be an IdP's report of a disabled person whose credentials then
    // live on (contract §17): any refusal is looked at.
    props.alarms.add('IdentitySignalsRefused', {
      description:
        'The identity signals receiver refused a security event token: an IdP’s report of a disabled person may not have been acted on.',
      metric: ServiceAlarms.serviceCount('IdentitySignalsRefused', { period: Duration.minutes(5) }),
      threshold: 0,
    });
  }
}

/** The stage's own throttling of the routes that name one (registration, token). */
function throttleRoutes(
  stage: HttpStage,
  throttles: Record<NonNullable<OAuthRoute['throttle']>, Throttle>,
): void {
  const cfnStage = stage.node.defaultChild;
  if (!(cfnStage instanceof CfnStage)) throw new Error('the OAuth API stage has no CfnStage');
  cfnStage.routeSettings = Object.fromEntries(
    OAUTH_ROUTES.flatMap((r) =>
      r.throttle
        ? [
            [
              oauthRouteKey(r),
              {
                ThrottlingRateLimit: throttles[r.throttle].rateLimit,
                ThrottlingBurstLimit: throttles[r.throttle].burstLimit,
              },
            ],
          ]
        : [],
    ),
  );
}
