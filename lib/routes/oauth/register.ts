import * as z from 'zod';
import { OAUTH_PATHS } from '#lib/oauth/metadata';
import { register } from '#lib/oauth/registration';
import { defineOAuthRoute, jsonReply } from './oauth-route.ts';

/**
 * An RFC 7591 registration as read: a JSON object, whose rules (redirect URIs, types, name, scope)
 * `validateRegistration` applies with RFC 7591's errors.
 */
const Registration = z
  .record(z.string(), z.unknown(), { error: 'The registration must be a JSON object.' })
  .meta({
    id: 'ClientRegistration',
    description:
      'RFC 7591 client metadata: `redirect_uris` (required, at most 10; a client of the jwt-bearer grant only may list none, and then names itself in `client_name`), `client_name`, `grant_types` (those of the metadata’s `grant_types_supported`), `response_types`, `token_endpoint_auth_method` (`none`), `scope`, `application_type` (`native` or `web`).',
  });

const Registered = z
  .looseObject({
    client_id: z.string(),
    client_id_issued_at: z.number().int(),
    redirect_uris: z.array(z.string()),
  })
  .meta({ id: 'ClientRegistered' });

/** POST /oauth/register (RFC 7591), and the root fallback clients try at the MCP server's origin. */
export default defineOAuthRoute({
  operationId: 'registerClient',
  method: 'POST',
  path: OAUTH_PATHS.register,
  alsoAt: [{ path: OAUTH_PATHS.registerFallback, deployment: 'mcp-api' }],
  deployment: 'oauth-api',
  summary: 'Register a client (dynamic client registration)',
  description:
    'Public clients only (no secret): at most 10 redirect URIs, a `client_name` of at most 100 characters, a body of at most 8 KiB. Where an identity provider is trusted, a client may register the jwt-bearer grant (an ID-JAG), and with it alone needs no redirect URI. A registered client is shown as unverified, and expires after 30 days unless a grant used it.',
  input: 'json',
  schema: Registration,
  errors: ['invalid_client_metadata', 'invalid_redirect_uri', 'temporarily_unavailable'],
  success: { status: 201, description: 'The client, with its `client_id`.', schema: Registered },
  preflight: true,
  throttle: 'registration',
  grants: { pepper: false, dynamodb: [{ actions: ['dynamodb:PutItem'], on: ['keys'] }] },
  handle:
    (deps) =>
    async ({ input }) =>
      jsonReply(201, await register(deps, input)),
});
