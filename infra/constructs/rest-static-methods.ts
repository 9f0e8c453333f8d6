import { Stack, Token, Validations } from 'aws-cdk-lib';
import {
  HttpIntegration,
  type IResource,
  type IRestApi,
  type Method,
  MockIntegration,
  PassthroughBehavior,
} from 'aws-cdk-lib/aws-apigateway';
import type { McpAnswer } from '#lib/mcp/answer';
import { REGISTRATION_PATH, registrationRefusal } from '#lib/mcp/registration';
import {
  OAUTH_PATHS,
  OPEN_CORS,
  protectedResourceDocument,
  protectedResourceMetadataUrl,
} from '#lib/oauth/metadata';

/**
 * The methods API Gateway answers itself on an MCP server's REST API, for McpKeyAuthorizer
 * (mcp-key-authorizer.ts): the registration refusal, the Protected Resource Metadata with its
 * registration forwarding, and their CORS preflights; and the API's own URLs.
 */

/** Where RFC 9728 puts Protected Resource Metadata, before the resource's path. */
const RESOURCE_METADATA_PREFIX = OAUTH_PATHS.resourceMetadata;

/** A static gateway response header value: API Gateway wants it in single quotes. */
export function staticValue(value: string): string {
  if (value.includes("'")) throw new Error(`a static gateway response header cannot hold a quote: ${value}`);
  return `'${value}'`;
}

/**
 * `POST /register` as a mock integration (no function, no authorizer): the answer is static. The
 * body template is Velocity, so the URL may not hold its `$` or `#`.
 */
export function addRegistrationRefusal(api: IRestApi, keysPageUrl: string): void {
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

/**
 * A URL of the REST API's own (`https://<id>.execute-api.<region>.<suffix>/<stage><path>`), built
 * from the stage's name as written: a reference to the stage itself would make the authorizer (or
 * a function the API integrates), on which the stage's deployment depends, depend on the stage.
 */
export function ownUrl(api: IRestApi, path: string): string {
  const stageName = (api.deploymentStage.node.defaultChild as { stageName?: unknown } | undefined)?.stageName;
  if (typeof stageName !== 'string' || Token.isUnresolved(stageName))
    throw new Error('McpKeyAuthorizer: the REST API’s stage needs a name written at synth for oauth');
  const stack = Stack.of(api);
  return `https://${api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${stageName}${path}`;
}

/** Gateway response and method response header values: static, single-quoted. */
const staticHeaders = (headers: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [`method.response.header.${k}`, staticValue(v)]),
  );

/** A method answered by API Gateway itself with `answer` (a mock: no function, no authorizer). */
function addStaticMethod(resource: IResource, httpMethod: string, answer: McpAnswer, reason: string): Method {
  const { 'content-type': contentType, ...headers } = answer.headers;
  const responseParameters = staticHeaders(headers);
  const integration = new MockIntegration({
    requestTemplates: { 'application/json': `{"statusCode": ${answer.status}}` },
    passthroughBehavior: PassthroughBehavior.NEVER,
    integrationResponses: [
      {
        statusCode: String(answer.status),
        responseParameters,
        ...(contentType && { responseTemplates: { [contentType]: answer.body } }),
      },
    ],
  });
  const method = resource.addMethod(httpMethod, integration, {
    methodResponses: [
      {
        statusCode: String(answer.status),
        responseParameters: Object.fromEntries(Object.keys(responseParameters).map((k) => [k, true])),
      },
    ],
  });
  acknowledgeOpen(method, reason);
  return method;
}

/** cdk-nag's findings on a method that asks for no credential, acknowledged with why. */
function acknowledgeOpen(method: Method, reason: string): void {
  Validations.of(method).acknowledge(
    { id: 'AwsSolutions-APIG4', reason },
    { id: 'AwsSolutions-COG4', reason },
  );
}

/** A CORS preflight's answer for the OAuth paths: any origin, no credentials (as the OAuth function's). */
const PREFLIGHT: McpAnswer = { status: 204, headers: OPEN_CORS, body: '' };

/**
 * The resource's Protected Resource Metadata on `api` (static: the document depends only on the
 * deployment) and the registration fallback; answers the URL its 401s name.
 */
export function addProtectedResource(
  api: IRestApi,
  oauth: { resource: string; issuer: string; path: string },
): string {
  const document = JSON.stringify(protectedResourceDocument(oauth.resource, oauth.issuer));
  // The body template is Velocity: what is known at synth may not hold its `$` or `#`.
  const literal = document.replace(/\$\{Token\[[^\]]+\]\}/g, '');
  if (/[$#]/.test(literal))
    throw new Error(`McpKeyAuthorizer: the resource and issuer cannot hold $ or #: ${document}`);
  const answer: McpAnswer = {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600', ...OPEN_CORS },
    body: document,
  };
  const paths = [...new Set([`${RESOURCE_METADATA_PREFIX}${oauth.path}`, RESOURCE_METADATA_PREFIX])];
  for (const path of paths) {
    const resource = api.root.resourceForPath(path);
    const reason =
      'Protected Resource Metadata (RFC 9728) is public by definition: clients read it before they hold a credential.';
    addStaticMethod(resource, 'GET', answer, reason);
    addStaticMethod(resource, 'OPTIONS', PREFLIGHT, reason);
  }
  // The registration fallback at the origin's root goes to the authorization server's endpoint,
  // whose function answers it as it answers `/oauth/register` (its own throttle applies).
  const register = api.root.resourceForPath(REGISTRATION_PATH);
  const forwarded = register.addMethod(
    'POST',
    new HttpIntegration(`${oauth.issuer}${OAUTH_PATHS.register}`, { httpMethod: 'POST', proxy: true }),
  );
  const reason =
    'Dynamic client registration (RFC 7591) takes no credential by design; the request goes to the authorization server, which validates and throttles it.';
  acknowledgeOpen(forwarded, reason);
  addStaticMethod(register, 'OPTIONS', PREFLIGHT, reason);
  return Token.isUnresolved(oauth.resource)
    ? ownUrl(api, `${RESOURCE_METADATA_PREFIX}${oauth.path}`)
    : protectedResourceMetadataUrl(oauth.resource);
}
