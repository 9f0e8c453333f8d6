import { jsonRpcError, MCP_ERROR_CODES, type McpAnswer } from './answer.ts';
import { type DenialOptions, mcpDenial } from './denial.ts';

/** The API Gateway REST API response types the key authorizer's REST attachment sets. */
export type RestGatewayResponseType =
  | 'UNAUTHORIZED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'ACCESS_DENIED'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR';

/**
 * The gateway responses of one REST API; with OAuth on, its 401 names the API's Protected
 * Resource Metadata (contract §15). `REST_GATEWAY_RESPONSES` are those of an API without OAuth.
 */
export function restGatewayResponses(
  options: DenialOptions = {},
): Readonly<Record<RestGatewayResponseType, McpAnswer>> {
  return {
    UNAUTHORIZED: mcpDenial({ outcome: 'unauthorized' }, options),
    ...FIXED_RESPONSES,
  };
}

const FIXED_RESPONSES = {
  // API Gateway's answer for a path or method the API does not define (its name is historical).
  MISSING_AUTHENTICATION_TOKEN: jsonRpcError(
    404,
    MCP_ERROR_CODES.transport,
    'Not found: this API has no such path or method; check the MCP server URL.',
  ),
  ACCESS_DENIED: mcpDenial({ outcome: 'no_access' }),
  AUTHORIZER_FAILURE: mcpDenial({ outcome: 'unavailable' }),
  AUTHORIZER_CONFIGURATION_ERROR: mcpDenial({ outcome: 'unavailable' }),
} as const satisfies Readonly<Record<Exclude<RestGatewayResponseType, 'UNAUTHORIZED'>, McpAnswer>>;

/**
 * What a REST API answers around the key authorizer (contract §7), by gateway response type. The
 * CDK construct deploys these values and local mode answers with them, so both say the same.
 *
 * A gateway response has one status, one set of static headers and a body template without
 * logic, and API Gateway hands an authorizer's context only to responses that follow a policy,
 * never to the 401 that follows a thrown `Unauthorized` or a missing `Authorization` header. So
 * every 401 case shares one answer whose message names them all; `ACCESS_DENIED` only ever
 * follows the Deny policy for `no_access`, and both ways an authorizer invocation can fail
 * (API Gateway reports a thrown error or a timeout as AUTHORIZER_CONFIGURATION_ERROR) answer 503.
 */
export const REST_GATEWAY_RESPONSES: Readonly<Record<RestGatewayResponseType, McpAnswer>> =
  restGatewayResponses();
