/**
 * The kinds of credential that reach a workspace. Keys, usage and the workspace policy's
 * `credential_kinds` rule all speak of them, so they live here, beside the scopes.
 */

/** What a credential is: an API key, or an OAuth grant a person gave an app on the consent page. */
export type CredentialKind = 'api_key' | 'oauth_grant';

/** Every kind, in the order the API lists them. */
export const CREDENTIAL_KINDS: readonly ['api_key', 'oauth_grant'] = ['api_key', 'oauth_grant'];
