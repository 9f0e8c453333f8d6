import { Duration, Token } from 'aws-cdk-lib';
import {
  GatewayResponse,
  type IAuthorizer,
  IdentitySource,
  type IRestApi,
  RequestAuthorizer,
  ResponseType,
} from 'aws-cdk-lib/aws-apigateway';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { type IMetric, MathExpression, Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { type IFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { toolCatalogueProblems } from '#lib/access/tool-setting';
import type { ToolCatalogue } from '#lib/access/tools';
import { REST_GATEWAY_RESPONSES, restGatewayResponses } from '#lib/mcp/gateway-responses';
import { METRIC_NAMES, METRICS_NAMESPACE, SERVICE_NAME } from '#lib/observability';
import { acknowledgeGuardRule, GUARD_EXCEPTIONS } from '../guard.ts';
import { addProtectedResource, addRegistrationRefusal, staticValue } from './rest-static-methods.ts';

export { ownUrl } from './rest-static-methods.ts';

/** SSM parameter holding the key authorizer's ARN, for other stacks to attach it. */
export const KEY_AUTHORIZER_PARAMETER = '/svc-mcp-api-keys/key-authorizer-function-arn';

/** The key authorizer function to attach, and the MCP server it guards when OAuth is on. */
export interface McpKeyAuthorizerProps {
  /** The key authorizer function (`functions/mcp-authorizer.ts`). */
  readonly handler: IFunction;
  /**
   * OAuth 2.1 for the MCP server this authorizer guards (contract §15): the key service's
   * authorization server issues it access tokens, which the authorizer accepts beside API keys.
   * The handler's environment gets `MCP_RESOURCE` (an access token issued for another MCP server
   * is refused), so it must be a function this app owns, not one imported by `fromParameter`.
   * @default none (API keys only; no OAuth metadata is advertised)
   */
  readonly oauth?: McpKeyAuthorizerOAuth;
  /**
   * The tools of the MCP server this authorizer guards and the scope each needs (contract §19): a
   * `tools/call` whose `Mcp-Name` the credential may call in none of its workspaces is refused
   * (403 with the sentence). The handler's environment gets `MCP_TOOLS`, so it must be a function
   * this app owns. @default the handler's own catalogue (the key service's `mcpTools`; a tool it
   * does not name is judged by the credential's and the policies' lists alone)
   */
  readonly tools?: ToolCatalogue;
}

/** The MCP server an authorizer guards, as an OAuth protected resource (RFC 8707, RFC 9728). */
export interface McpKeyAuthorizerOAuth {
  /**
   * The MCP server's canonical URL, exactly as its clients are given it: on a custom domain
   * mapped to the REST API with an empty base path (`https://mcp.example.com/mcp`), or the REST
   * API's own URL, known only at deployment (a token; `path` then says where it is on the API).
   * The key service's `oauthResources` setting must list it.
   */
  readonly resource: string;
  /** The authorization server's issuer: the key service's `OAuthIssuer` output. */
  readonly issuer: string;
  /**
   * The MCP server's path on the REST API (`/mcp`). Required when `resource` is a token.
   * @default the path of `resource`
   */
  readonly path?: string;
}

/** Options of `attachToRestApi`. */
export interface RestAttachOptions {
  /**
   * Answer the OAuth registration fallback (`POST /register`) with a 400 that sends people to
   * this key page. Only useful on a REST API that serves its origin's root (a custom domain
   * mapped with an empty base path): clients register at the origin's root, which a default
   * `execute-api` URL's stage path never is. Not with `oauth`, where that path registers the
   * client with the authorization server. @default none (the path stays unanswered)
   */
  readonly keysPageUrl?: string;
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

  /** The key authorizer function every attachment invokes. */
  readonly handler: IFunction;
  /** The protected resource, with its path on the API, when OAuth is on. */
  private readonly oauth: (McpKeyAuthorizerOAuth & { path: string }) | undefined;
  private readonly rest = new Map<IRestApi, IAuthorizer>();
  private readonly http = new Map<IHttpApi, HttpLambdaAuthorizer>();

  constructor(scope: Construct, id: string, props: McpKeyAuthorizerProps) {
    super(scope, id);
    this.handler = props.handler;
    // An imported function's environment is not this app's to change.
    const owned = props.handler as IFunction & { addEnvironment?: (key: string, value: string) => unknown };
    const own = (option: string, variable: string) => {
      if (typeof owned.addEnvironment !== 'function')
        throw new Error(
          `McpKeyAuthorizer: ${option} needs an authorizer function this app owns (its ${variable} is set here); ` +
            'an imported one serves the key service’s own endpoint. Verify in-process with the verifier’s ' +
            `\`${option === 'oauth' ? 'resource' : 'tools'}\` option instead (docs/mcp-servers.md).`,
        );
      return owned as Required<typeof owned>;
    };
    if (props.oauth) {
      this.oauth = { ...props.oauth, path: resourcePath(props.oauth) };
      own('oauth', 'MCP_RESOURCE').addEnvironment('MCP_RESOURCE', props.oauth.resource);
    }
    if (props.tools) {
      const problems = toolCatalogueProblems(props.tools);
      if (problems.length > 0) throw new Error(`McpKeyAuthorizer: tools ${problems.join('; ')}`);
      own('tools', 'MCP_TOOLS').addEnvironment('MCP_TOOLS', JSON.stringify(props.tools));
    }
  }

  /**
   * The REQUEST authorizer for a REST API's MCP methods (pass it to `addMethod`), and the API's
   * UNAUTHORIZED, MISSING_AUTHENTICATION_TOKEN, ACCESS_DENIED, AUTHORIZER_FAILURE and
   * AUTHORIZER_CONFIGURATION_ERROR gateway responses. Gateway responses are API-wide. With
   * `keysPageUrl`, also `POST /register` answering RFC 7591's `invalid_client_metadata`.
   *
   * With `oauth`, every 401 names the resource's Protected Resource Metadata (RFC 9728), which the
   * API serves as a static document at `/.well-known/oauth-protected-resource<path>` and
   * `/.well-known/oauth-protected-resource` (no function, no authorizer, any origin), and
   * `POST /register` (the registration fallback at the origin's root) reaches the authorization
   * server's registration endpoint. On a custom domain the 401 names RFC 9728's URL; on the API's
   * own URL, the same document under the stage (the origin's root is not the API's there).
   */
  attachToRestApi(api: IRestApi, options: RestAttachOptions = {}): IAuthorizer {
    const existing = this.rest.get(api);
    if (existing) return existing;
    if (options.keysPageUrl && this.oauth)
      throw new Error(
        'McpKeyAuthorizer: keysPageUrl answers POST /register for an MCP server without OAuth; with oauth, that path registers the client',
      );
    if (options.keysPageUrl) addRegistrationRefusal(api, options.keysPageUrl);
    const responses = this.oauth
      ? restGatewayResponses({ resourceMetadataUrl: addProtectedResource(api, this.oauth) })
      : REST_GATEWAY_RESPONSES;
    const n = this.rest.size;
    const authorizer = new RequestAuthorizer(this, `Rest${n}`, {
      handler: this.handler,
      authorizerName: 'mcp-key',
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: Duration.seconds(0),
    });
    for (const [type, answer] of Object.entries(responses)) {
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

/** The resource's path on the API: given, or the path of a resource URL known at synth. */
function resourcePath(oauth: McpKeyAuthorizerOAuth): string {
  if (oauth.path !== undefined) {
    if (!oauth.path.startsWith('/'))
      throw new Error(`McpKeyAuthorizer: oauth.path must start with /: ${oauth.path}`);
    return oauth.path.replace(/\/$/, '');
  }
  if (Token.isUnresolved(oauth.resource))
    throw new Error(
      'McpKeyAuthorizer: oauth.path is required when oauth.resource is known only at deployment',
    );
  if (!URL.canParse(oauth.resource) || new URL(oauth.resource).protocol !== 'https:')
    throw new Error(`McpKeyAuthorizer: oauth.resource must be an https URL: ${oauth.resource}`);
  return new URL(oauth.resource).pathname.replace(/\/$/, '');
}
