/**
 * The kinds of credential that reach a workspace. Keys, usage and the workspace policy's
 * `credential_kinds` rule all speak of them, so they live here, beside the scopes.
 */

/**
 * What a credential is: an API key; an OAuth grant a person gave an app on the consent page; or
 * an enterprise grant, which the person's identity provider decided (contract §17: an ID-JAG
 * exchanged at the token endpoint, no consent screen).
 */
export type CredentialKind = 'api_key' | 'oauth_grant' | 'enterprise_grant';

/** Every kind, in the order the API lists them. */
export const CREDENTIAL_KINDS: readonly ['api_key', 'oauth_grant', 'enterprise_grant'] = [
  'api_key',
  'oauth_grant',
  'enterprise_grant',
];

/** The kinds that are grants to an OAuth client (their tokens are `svc_mcp_at_v1_…`). */
export type GrantKind = Exclude<CredentialKind, 'api_key'>;
