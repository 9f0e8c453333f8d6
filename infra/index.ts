/**
 * The CDK constructs other teams use, published as `@svc/mcp-api-keys-cdk`: the key authorizer
 * for their own APIs, and the whole service as one construct for a platform team's app.
 * `aws-cdk-lib` and `constructs` are the consumer's own (peer dependencies).
 */

export { SCOPES, type Scope } from '#lib/access/scopes';
export type { McpTool, ToolCatalogue } from '#lib/access/tools';
export type { IdentityProvider } from '#lib/identity/providers';
export type { GrantTarget } from '#lib/routes/route-module';
export { type ServiceAlarmProps, ServiceAlarms, type ServiceAlarmsProps } from './constructs/alarms.ts';
export { EventPublishing, type EventPublishingProps } from './constructs/event-publishing.ts';
export { McpEndpoint, type McpEndpointProps } from './constructs/mcp-endpoint.ts';
export {
  KEY_AUTHORIZER_PARAMETER,
  McpKeyAuthorizer,
  type McpKeyAuthorizerOAuth,
  type McpKeyAuthorizerProps,
  type RestAttachOptions,
} from './constructs/mcp-key-authorizer.ts';
export { OAuthServer, type OAuthServerProps, type Throttle } from './constructs/oauth-server.ts';
export { VERIFIER_TAG } from './constructs/pepper-key.ts';
export { type VerifierResourceArns, verifierPolicyStatements } from './constructs/verify-grant.ts';
export { WorkspaceGovernance, type WorkspaceGovernanceProps } from './constructs/workspace-governance.ts';
export {
  McpApiKeyService,
  type McpApiKeyServiceProps,
  McpApiKeyServiceStage,
  type McpApiKeyServiceStageProps,
  STACK_NAMES,
} from './mcp-api-key-service.ts';
export {
  type DeploymentSettings,
  type DeploymentSettingsInput,
  DeploymentSettingsSchema,
  parseSettings,
} from './settings.ts';
export { StatefulStack, type StatefulStackProps } from './stacks/stateful.ts';
export { type StatelessFunctionName, StatelessStack, type StatelessStackProps } from './stacks/stateless.ts';
