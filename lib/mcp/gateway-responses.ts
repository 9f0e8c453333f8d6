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

/** The ACCESS_DENIED body's placeholder, which API Gateway fills from the Deny's context. */
export const DENY_MESSAGE = '$context.authorizer.message';

/**
 * An ACCESS_DENIED body as API Gateway renders it: its placeholder filled with the Deny's
 * sentence (local mode's REST API renders it so). The authorizer writes no quote or backslash
 * into the sentence, so it is inserted as is, as API Gateway does.
 */
export const renderDenied = (body: string, context: Record<string, unknown> | undefined): string =>
  body.replace(DENY_MESSAGE, typeof context?.message === 'string' ? context.message : '');

const FIXED_RESPONSES = {
  // API Gateway's answer for a path or method the API does not define (its name is historical).
  MISSING_AUTHENTICATION_TOKEN: jsonRpcError(
    404,
    MCP_ERROR_CODES.transport,
    'Not found: this API has no such path or method; check the MCP server URL.',
  ),
  // Its sentence is the Deny's own (`DenyContext`): no access at all, or a tool it may not call.
  ACCESS_DENIED: {
    ...mcpDenial({ outcome: 'no_access' }),
    body: jsonRpcError(403, MCP_ERROR_CODES.forbidden, DENY_MESSAGE).body,
  },
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
 * follows a Deny policy, whose context carries the sentence its body shows, and both ways an authorizer invocation can fail
 * (API Gateway reports a thrown error or a timeout as AUTHORIZER_CONFIGURATION_ERROR) answer 503.
 */
export const REST_GATEWAY_RESPONSES: Readonly<Record<RestGatewayResponseType, McpAnswer>> =
  restGatewayResponses();
