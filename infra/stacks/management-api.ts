import { Duration, type Stack, Validations } from 'aws-cdk-lib';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SERVICE_NAME } from '#lib/observability';
import { CORS, routesOf } from '../api-edge.ts';
import { ACCESS_LOG_FORMAT, serviceLogGroup } from '../constructs/service-function.ts';
import { acknowledgeGuardRule, GUARD_EXCEPTIONS } from '../guard.ts';
import type { DeploymentSettings } from '../settings.ts';
import { pascal } from './stateless-functions.ts';
import type { StatelessFunctionName } from './stateless-types.ts';

/**
 * The management API of the stateless stack (infra/stacks/stateless.ts): an HTTP API with CORS
 * from infra/api-edge.ts, its throttled default stage with access logs, and every route of
 * `routesOf('http')` on its function, behind the user JWT authorizer unless the route needs none.
 * Made in the stack's own scope, so its logical ids are the stack's.
 */
export function managementApi(
  stack: Stack,
  settings: DeploymentSettings,
  fns: Partial<Record<StatelessFunctionName, IFunction>>,
): { api: HttpApi; stage: HttpStage } {
  const accessLogs = serviceLogGroup(stack, 'ApiAccessLogs', settings.logRetentionDays);
  const api = new HttpApi(stack, 'Api', {
    apiName: SERVICE_NAME,
    description: 'MCP API key management',
    createDefaultStage: false,
    ...(settings.corsOrigins.length > 0 && {
      corsPreflight: {
        allowOrigins: settings.corsOrigins,
        allowMethods: CORS.allowMethods.map((m) => CorsHttpMethod[m]),
        allowHeaders: [...CORS.allowHeaders],
        exposeHeaders: [...CORS.exposeHeaders],
        maxAge: Duration.seconds(CORS.maxAgeSeconds),
      },
    }),
  });
  const stage = new HttpStage(stack, 'DefaultStage', {
    httpApi: api,
    stageName: '$default',
    autoDeploy: true,
    throttle: { rateLimit: settings.throttleRate, burstLimit: settings.throttleBurst },
    accessLogSettings: {
      destination: new LogGroupLogDestination(accessLogs),
      format: ACCESS_LOG_FORMAT,
    },
  });
  addRoutes(api, settings, fns);
  acknowledgeGuardRule(api, GUARD_EXCEPTIONS.apiGatewayInvokePermission);
  return { api, stage };
}

/** Each route on its function; the user JWT authorizer on every `jwt` route. */
function addRoutes(
  api: HttpApi,
  settings: DeploymentSettings,
  fns: Partial<Record<StatelessFunctionName, IFunction>>,
): void {
  const userJwt = new HttpJwtAuthorizer('UserJwt', settings.jwtIssuer, {
    jwtAudience: settings.jwtAudience,
    identitySource: ['$request.header.Authorization'],
  });
  for (const route of routesOf('http')) {
    const handler = fns[route.handler];
    // The consent routes exist only with OAuth on.
    if (!handler) continue;
    const [added] = api.addRoutes({
      path: route.path,
      methods: [HttpMethod[route.method]],
      integration: new HttpLambdaIntegration(`${pascal(route.handler)}${route.method}`, handler),
      ...(route.auth === 'jwt' && { authorizer: userJwt }),
    });
    if (route.auth === 'none' && added) {
      acknowledgeGuardRule(added, GUARD_EXCEPTIONS.unauthenticatedRoutes);
      Validations.of(added).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'Leak reports need no credentials (contract §11): holding a key is the authority to revoke it; the GitHub route checks GitHub’s signature, and each route is throttled on its own.',
      });
    }
  }
}
