import { randomUUID } from 'node:crypto';
import {
  isMetadataDocumentClientId,
  OAUTH_CLIENT_LIMITS,
  type RegistrationMetadata,
  validateRegistration,
} from './clients.ts';
import type { ClientResolver, OAuthDeps } from './deps.ts';
import { OAuthError } from './errors.ts';
import { grantTypesSupported } from './metadata.ts';
import type { RegisteredClient } from './model.ts';

/** What `POST /oauth/register` answers (RFC 7591 §3.2.1): the metadata accepted, and the client's id. */
export interface RegistrationResponse extends RegistrationMetadata {
  client_id: string;
  client_id_issued_at: number;
}

/**
 * Registers a public client; it is shown as unverified and expires unless a grant uses it. The
 * grant types it may name are those the metadata advertises (the ID-JAG's where an identity
 * provider is trusted).
 */
export async function register(
  deps: Pick<OAuthDeps, 'store' | 'now' | 'oauth'>,
  body: unknown,
): Promise<RegistrationResponse> {
  const result = validateRegistration(body, grantTypesSupported(deps.oauth));
  if (!result.ok) throw new OAuthError(result.error, result.error_description);
  const now = deps.now();
  const client: RegisteredClient = {
    client_id: randomUUID(),
    client_name: result.metadata.client_name,
    redirect_uris: result.metadata.redirect_uris,
    created_at: now.toISOString(),
  };
  await deps.store.putClient(client, new Date(now.getTime() + OAUTH_CLIENT_LIMITS.unusedRegistrationMs));
  return {
    client_id: client.client_id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...result.metadata,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The client of a `client_id`: a metadata document's URL is fetched (with the SSRF rules of
 * `client-metadata.ts`); anything else must be a live registration of this server.
 */
export function clientResolver(
  deps: Pick<OAuthDeps, 'store' | 'now'>,
  fetchDocument: ClientResolver,
  options: { allowLoopbackHttp?: boolean; metadataDocuments?: boolean | undefined } = {},
): ClientResolver {
  const unknown = {
    ok: false,
    error_description:
      'This app is not registered with this server, or its registration expired; remove the server from the app and add it again.',
  } as const;
  const documentsOff = {
    ok: false,
    error_description:
      'This server does not accept apps that identify themselves by a metadata document URL: the app has to register with the server (dynamic client registration) instead.',
  } as const;
  return async (clientId) => {
    if (isMetadataDocumentClientId(clientId, options))
      return options.metadataDocuments === false ? documentsOff : fetchDocument(clientId);
    // Stryker disable next-line ConditionalExpression: equivalent, an id that is no UUID was never registered, so the read finds nothing; the check saves the read
    if (!UUID.test(clientId)) return unknown;
    const registered = await deps.store.getClient(clientId);
    const expired =
      registered &&
      !registered.used_at &&
      Date.parse(registered.created_at) + OAUTH_CLIENT_LIMITS.unusedRegistrationMs <= deps.now().getTime();
    if (!registered || expired) return unknown;
    return {
      ok: true,
      client: {
        client_id: registered.client_id,
        client_name: registered.client_name,
        redirect_uris: registered.redirect_uris,
        verified_domain: null,
        registration: 'dynamic',
      },
    };
  };
}
