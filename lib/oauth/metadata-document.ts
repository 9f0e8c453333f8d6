import {
  applicationTypeProblem,
  clientNameProblem,
  type OAuthClient,
  redirectUrisProblem,
} from './clients.ts';
import { lowerFirst } from './metadata-transport.ts';

/**
 * What a Client ID Metadata Document must say to describe a client this server accepts, and the
 * words its refusals use (lib/oauth/client-metadata.ts fetches it).
 */

export const DOCUMENT = "The client's metadata document";

/**
 * The client a document describes, or why it is refused. The document's `client_id` must be the
 * URL exactly; it must list `redirect_uris`; its `client_name` is used when present, else the
 * URL's host; it must be a public client (it must not carry a secret, and it authenticates with
 * `none`, or lists `none` among its `token_endpoint_auth_methods_supported`); an
 * `application_type`, when given, must fit its redirect URIs (SEP-837). Other metadata is ignored.
 */
export function clientFromDocument(clientId: string, url: URL, document: unknown): OAuthClient | string {
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    return `${DOCUMENT} is not a JSON object.`;
  const doc = document as Record<string, unknown>;
  if (doc.client_id !== clientId)
    return `The client_id in ${lowerFirst(DOCUMENT)} is not exactly the URL it was fetched from.`;
  const urisProblem = redirectUrisProblem(doc.redirect_uris, { echo: false });
  if (urisProblem) return `${DOCUMENT} is refused: ${urisProblem}`;
  const type = doc.application_type;
  if (type !== undefined && type !== 'native' && type !== 'web')
    return `${DOCUMENT} is refused: application_type must be "native" or "web" (SEP-837).`;
  const kindProblem = applicationTypeProblem(type, doc.redirect_uris as string[]);
  if (kindProblem) return `${DOCUMENT} is refused: ${kindProblem}`;
  if (doc.client_name !== undefined) {
    const nameProblem = clientNameProblem(doc.client_name);
    if (nameProblem) return `${DOCUMENT} is refused: ${nameProblem}`;
  }
  if ('client_secret' in doc || 'client_secret_expires_at' in doc)
    return `${DOCUMENT} carries a client secret; a metadata document describes a public client and must not.`;
  const method = doc.token_endpoint_auth_method;
  const methods = doc.token_endpoint_auth_methods_supported;
  const offersNone = Array.isArray(methods) && methods.includes('none');
  if (method !== undefined && method !== 'none' && !offersNone)
    return `${DOCUMENT} asks for token endpoint authentication; this server accepts public clients only: set token_endpoint_auth_method to "none".`;
  return {
    client_id: clientId,
    client_name: typeof doc.client_name === 'string' ? doc.client_name.trim() : url.host,
    redirect_uris: [...new Set(doc.redirect_uris as string[])],
    verified_domain: url.host,
    registration: 'metadata_document',
  };
}
