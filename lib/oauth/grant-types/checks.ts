import type { KeyRecord } from '#lib/keys/model';
import { sameResource } from '../deps.ts';
import { OAuthError } from '../errors.ts';
import { invalidGrant } from '../tokens.ts';

/** `resource`, when sent, must be the grant's (RFC 8707), in any form of its URL; a grant is for one MCP server. */
export function checkResource(grant: KeyRecord, resource: string | undefined) {
  // Stryker disable next-line OptionalChaining,StringLiteral: equivalent, a grant record always holds its grant details (grantOf checks them)
  if (resource !== undefined && !sameResource(resource, grant.grant?.resource ?? ''))
    throw new OAuthError('invalid_target', 'The resource is not the MCP server this grant was given for.');
}

/** A public client names itself (`client_id`), and only the client a grant was given to may use it. */
export function checkClient(grant: KeyRecord, clientId: string | undefined) {
  if (!clientId) throw new OAuthError('invalid_request', 'client_id is required.');
  // Stryker disable next-line OptionalChaining: equivalent, a grant record always holds its grant details (grantOf checks them)
  if (clientId !== grant.grant?.client.id) throw invalidGrant('The grant was not given to this client.');
}
