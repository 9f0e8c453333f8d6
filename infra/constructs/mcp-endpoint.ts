import { CfnOutput, Validations } from 'aws-cdk-lib';
import {
  AuthorizationType,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { MCP_EDGE, REST_STAGE, routesOf } from '../api-edge.ts';
import { acknowledgeGuardRule, GUARD_EXCEPTIONS } from '../guard.ts';
import { type McpKeyAuthorizer, ownUrl } from './mcp-key-authorizer.ts';
import { ACCESS_LOG_FORMAT, serviceLogGroup } from './service-function.ts';

/** The reference MCP endpoint's function, authorizer and stage settings. */
export interface McpEndpointProps {
  /** The reference MCP function (`functions/mcp-server.ts`). */
  handler: IFunction;
  /** The key authorizer every MCP method goes through. */
  keyAuthorizer: McpKeyAuthorizer;
  /** Stage throttling: steady requests per second and burst. */
  throttle: { rateLimit: number; burstLimit: number };
  /** Days the access logs are kept. @default 30 */
  logRetentionDays?: number;
  /** Answer `POST /register` with a refusal naming this key page (see `RestAttachOptions`). @default none */
  keysPageUrl?: string | undefined;
}

/**
 * The reference MCP endpoint (contract §7) on its own regional REST API: every method of the
 * REST routes (POST, GET, HEAD and DELETE /mcp) behind the key authorizer, so MCP clients get the
 * REST gateway responses rather than an HTTP API's fixed 401/403.
 */
export class McpEndpoint extends Construct {
  /** The regional REST API serving `/mcp` behind the key authorizer. */
  readonly api: RestApi;
  /** The URL MCP clients are given. */
  readonly url: string;
  /**
   * The same URL, built without a reference to the stage: what a function of the stack or the
   * key authorizer may name (a reference to the stage would be a cycle through its deployment).
   */
  readonly resourceUrl: string;

  constructor(scope: Construct, id: string, props: McpEndpointProps) {
    super(scope, id);
    const accessLogs = serviceLogGroup(this, 'AccessLogs', props.logRetentionDays ?? 30);
    this.api = new RestApi(this, 'Api', {
      restApiName: 'svc-mcp-reference',
      description: 'Reference MCP endpoint behind the MCP key authorizer',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // The API Gateway account's CloudWatch role is account-wide: not this stack's to own.
      cloudWatchRole: false,
      deployOptions: {
        stageName: REST_STAGE,
        // Traces of the authorizer and the function behind each MCP call (Control Tower CT.APIGATEWAY.PR.2).
        tracingEnabled: true,
        throttlingRateLimit: props.throttle.rateLimit,
        throttlingBurstLimit: props.throttle.burstLimit,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
      },
    });
    const authorizer = props.keyAuthorizer.attachToRestApi(
      this.api,
      props.keysPageUrl ? { keysPageUrl: props.keysPageUrl } : {},
    );
    const integration = new LambdaIntegration(props.handler, { allowTestInvoke: false });
    for (const route of routesOf('rest')) {
      this.api.root.resourceForPath(route.path).addMethod(route.method, integration, {
        authorizer,
        authorizationType: AuthorizationType.CUSTOM,
      });
    }
    this.url = this.api.urlForPath(routesOf('rest')[0]?.path);
    this.resourceUrl = ownUrl(this.api, MCP_EDGE.path);
    new CfnOutput(this, 'Url', {
      value: this.url,
      description: 'The MCP endpoint URL for MCP clients',
    }).overrideLogicalId('McpEndpointUrl');

    const acknowledge = (id: string, reason: string) => Validations.of(this.api).acknowledge({ id, reason });
    acknowledge(
      'AwsSolutions-APIG2',
      'Bodies are JSON-RPC, validated by the MCP SDK in the function; API Gateway validation would answer 400 with a body MCP clients cannot read, and the authorizer has already checked the only required header.',
    );
    acknowledge(
      'AwsSolutions-APIG3',
      'No WAF web ACL by default: every method needs a valid key, checked before the integration runs, and the stage is throttled; a deployment can associate a regional web ACL with the stage.',
    );
    acknowledge(
      'AwsSolutions-APIG6',
      'Execution logging needs the account-wide API Gateway CloudWatch role, which this stack must not own; JSON access logs record every request and each authorizer decision is logged by the function.',
    );
    acknowledgeGuardRule(this.api, GUARD_EXCEPTIONS.apiGatewayInvokePermission);
    acknowledgeGuardRule(this.api, GUARD_EXCEPTIONS.restApiExecutionLogging);
    acknowledge(
      'AwsSolutions-COG4',
      'MCP clients authenticate with MCP API keys, checked by the key Lambda authorizer (contract §6), not with Cognito user pool tokens.',
    );
  }
}
