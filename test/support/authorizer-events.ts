import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';

/**
 * The HTTP API Lambda authorizer event (payload 2.0) API Gateway sends for a request, with
 * `$request.header.Authorization` as the identity source.
 */
export function httpApiAuthorizerEvent(
  request: APIGatewayProxyEventV2WithJWTAuthorizer,
): APIGatewayRequestAuthorizerEventV2 {
  const { authorizer: _none, ...requestContext } = request.requestContext;
  const authorization = request.headers.authorization;
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:local:000000000000:${request.requestContext.apiId}/$default/${request.requestContext.http.method}${request.rawPath}`,
    identitySource: authorization === undefined ? [] : [authorization],
    routeKey: request.routeKey,
    rawPath: request.rawPath,
    rawQueryString: request.rawQueryString,
    cookies: request.cookies ?? [],
    headers: request.headers as Record<string, string>,
    ...(request.queryStringParameters && {
      queryStringParameters: request.queryStringParameters as Record<string, string>,
    }),
    requestContext: requestContext as APIGatewayRequestAuthorizerEventV2['requestContext'],
    ...(request.pathParameters && { pathParameters: request.pathParameters as Record<string, string> }),
    stageVariables: {},
  };
}
