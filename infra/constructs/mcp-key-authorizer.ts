import { Duration, Validations } from 'aws-cdk-lib';
import {
  GatewayResponse,
  type IAuthorizer,
  IdentitySource,
  type IRestApi,
  MockIntegration,
  PassthroughBehavior,
  RequestAuthorizer,
  ResponseType,
} from 'aws-cdk-lib/aws-apigateway';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { type IMetric, MathExpression, Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { type IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { REST_GATEWAY_RESPONSES } from '#lib/mcp/gateway-responses';
import { REGISTRATION_PATH, registrationRefusal } from '#lib/mcp/registration';
import { METRIC_NAMES, METRICS_NAMESPACE, SERVICE_NAME } from '#lib/observability';
import { acknowledgeGuardRule, GUARD_EXCEPTIONS } from '../guard.ts';

/** SSM parameter holding the key authorizer's ARN, for other stacks to attach it. */
export const KEY_AUTHORIZER_PARAMETER = '/svc-mcp-api-keys/key-authorizer-function-arn';

export interface McpKeyAuthorizerProps {
  /** The key authorizer function (`functions/mcp-authorizer.ts`). */
  handler: IFunction;
}

/** Options of `attachToRestApi`. */
export interface RestAttachOptions {
  /**
   * Answer the OAuth registration fallback (`POST /register`) with a 400 that sends people to
   * this key page. Only useful on a REST API that serves its origin's root (a custom domain
   * mapped with an empty base path): clients register at the origin's root, which a default
   * `execute-api` URL's stage path never is. @default none (the path stays unanswered)
   */
  keysPageUrl?: string;
}

/** A static gateway response header value: API Gateway wants it in single quotes. */
function staticValue(value: string): string {
  if (value.includes("'")) throw new Error(`a static gateway response header cannot hold a quote: ${value}`);
  return `'${value}'`;
}

/**
 * The MCP key authorizer (contract §6, §7), attachable to any API Gateway API in a few lines,
 * always with result cache TTL 0 (a cache would delay revocation and membership removal) and
 * the identity source on `Authorization`.
 *
 * - REST API: a REQUEST authorizer plus the gateway responses that give MCP clients a 401
 *   `invalid_token` / 403 `Bearer realm` challenge (no `error=`) and a JSON-RPC error they can show,
 *   and 503 with Retry-After when verification fails. Exact statuses; one message per status.
 * - HTTP API: a simple-response authorizer. API Gateway fixes the answers: 401
 *   `{"message":"Unauthorized"}` without a challenge when the header is missing, 403
 *   `{"message":"Forbidden"}` for every denial and for a verification failure.
 */
export class McpKeyAuthorizer extends Construct {
  /** The authorizer published by the key service's stack (SSM parameter), imported here. */
  static fromParameter(
    scope: Construct,
    id: string,
    parameterName: string = KEY_AUTHORIZER_PARAMETER,
  ): McpKeyAuthorizer {
    const functionArn = StringParameter.valueForStringParameter(scope, parameterName);
    const handler = LambdaFunction.fromFunctionAttributes(scope, `${id}Function`, {
      functionArn,
      sameEnvironment: true,
    });
    return new McpKeyAuthorizer(scope, id, { handler });
  }

  readonly handler: IFunction;
  private readonly rest = new Map<IRestApi, IAuthorizer>();
  private readonly http = new Map<IHttpApi, HttpLambdaAuthorizer>();

  constructor(scope: Construct, id: string, props: McpKeyAuthorizerProps) {
    super(scope, id);
    this.handler = props.handler;
  }

  /**
   * The REQUEST authorizer for a REST API's MCP methods (pass it to `addMethod`), and the API's
   * UNAUTHORIZED, MISSING_AUTHENTICATION_TOKEN, ACCESS_DENIED, AUTHORIZER_FAILURE and
   * AUTHORIZER_CONFIGURATION_ERROR gateway responses. Gateway responses are API-wide. With
   * `keysPageUrl`, also `POST /register` answering RFC 7591's `invalid_client_metadata`.
   */
  attachToRestApi(api: IRestApi, options: RestAttachOptions = {}): IAuthorizer {
    const existing = this.rest.get(api);
    if (existing) return existing;
    if (options.keysPageUrl) addRegistrationRefusal(api, options.keysPageUrl);
    const n = this.rest.size;
    const authorizer = new RequestAuthorizer(this, `Rest${n}`, {
      handler: this.handler,
      authorizerName: 'mcp-key',
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: Duration.seconds(0),
    });
    for (const [type, answer] of Object.entries(REST_GATEWAY_RESPONSES)) {
      const { 'content-type': contentType = 'application/json', ...headers } = answer.headers;
      new GatewayResponse(this, `Rest${n}${type}`, {
        restApi: api,
        type: ResponseType.of(type),
        statusCode: String(answer.status),
        responseHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, staticValue(v)])),
        templates: { [contentType]: answer.body },
      });
    }
    // API Gateway's permission to invoke the authorizer sits under the function, scoped to this API.
    acknowledgeGuardRule(this.handler, GUARD_EXCEPTIONS.apiGatewayInvokePermission);
    this.rest.set(api, authorizer);
    return authorizer;
  }

  /** The simple-response authorizer for an HTTP API's MCP routes (pass it to `addRoutes`). */
  attachToHttpApi(api: IHttpApi): HttpLambdaAuthorizer {
    const existing = this.http.get(api);
    if (existing) return existing;
    const authorizer = new HttpLambdaAuthorizer(`${this.node.id}Http${this.http.size}`, this.handler, {
      authorizerName: 'mcp-key',
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: ['$request.header.Authorization'],
      resultsCacheTtl: Duration.seconds(0),
    });
    this.http.set(api, authorizer);
    return authorizer;
  }

  /**
   * Authorizer invocations that failed: Lambda errors minus the `Unauthorized` a REST attachment
   * throws for every refused key by design (which Lambda counts as errors too).
   */
  metricFailures(props: MetricOptions = {}): IMetric {
    const period = props.period ?? Duration.minutes(1);
    return new MathExpression({
      expression: 'FILL(errors, 0) - FILL(unauthorized, 0)',
      usingMetrics: {
        errors: this.handler.metricErrors({ ...props, period, statistic: 'Sum' }),
        unauthorized: new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: METRIC_NAMES.authorizerUnauthorized,
          dimensionsMap: { service: SERVICE_NAME },
          statistic: 'Sum',
          period,
        }),
      },
      period,
      label: 'Key authorizer failures',
    });
  }
}

/**
 * `POST /register` as a mock integration (no function, no authorizer): the answer is static. The
 * body template is Velocity, so the URL may not hold its `$` or `#`.
 */
function addRegistrationRefusal(api: IRestApi, keysPageUrl: string): void {
  if (/[$#]/.test(keysPageUrl)) throw new Error(`keysPageUrl cannot hold $ or #: ${keysPageUrl}`);
  const answer = registrationRefusal(keysPageUrl);
  const { 'content-type': contentType = 'application/json', ...headers } = answer.headers;
  const responseParameters = Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [`method.response.header.${k}`, staticValue(v)]),
  );
  const integration = new MockIntegration({
    requestTemplates: { 'application/json': '{"statusCode": 400}' },
    passthroughBehavior: PassthroughBehavior.NEVER,
    integrationResponses: [
      {
        statusCode: String(answer.status),
        responseParameters,
        responseTemplates: { [contentType]: answer.body },
      },
    ],
  });
  const method = api.root.resourceForPath(REGISTRATION_PATH).addMethod('POST', integration, {
    methodResponses: [
      {
        statusCode: String(answer.status),
        responseParameters: Object.fromEntries(Object.keys(responseParameters).map((k) => [k, true])),
      },
    ],
  });
  Validations.of(method).acknowledge(
    {
      id: 'AwsSolutions-APIG4',
      reason:
        'The OAuth registration fallback answers every caller the same static refusal; it has nothing to protect.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason:
        'The OAuth registration fallback answers every caller the same static refusal; it has nothing to protect.',
    },
  );
}
