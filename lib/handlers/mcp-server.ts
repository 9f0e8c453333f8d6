import type {
  APIGatewayProxyEventV2WithLambdaAuthorizer,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';
import type { McpAuthContext } from '#lib/mcp/authorizer';
import { toRequest } from '#lib/mcp/request';
import { accessFromContext, serveMcp } from '#lib/mcp/server';
import { logger } from '#lib/observability';

type Event = APIGatewayProxyEventV2WithLambdaAuthorizer<Partial<McpAuthContext>>;

const FORBIDDEN: APIGatewayProxyStructuredResultV2 = {
  statusCode: 403,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message: 'Forbidden' }),
};

/**
 * POST /mcp: the reference MCP endpoint (contract §7). It trusts only the authorizer's
 * context and never re-verifies the key or reads identity from a header.
 */
export function mcpServerHandler() {
  return async (event: Event): Promise<APIGatewayProxyStructuredResultV2> => {
    const access = accessFromContext(event.requestContext.authorizer?.lambda);
    if (!access) {
      logger.error('mcp request without a usable authorizer context; refusing');
      return FORBIDDEN;
    }
    const response = await serveMcp(toRequest(event), access.workspaces);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { statusCode: response.status, headers, body: await response.text() };
  };
}
