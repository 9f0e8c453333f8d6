import type { OAuthDeps } from './deps.ts';
import { OAuthError } from './errors.ts';
import { redeemCode } from './grant-types/authorization-code.ts';
import { refresh } from './grant-types/refresh-token.ts';
import type { TokenResponse } from './tokens.ts';

export type { TokenResponse } from './tokens.ts';

/** The parameters of `POST /oauth/token` this server reads, each sent at most once. */
export interface TokenParams {
  grant_type?: string | undefined;
  code?: string | undefined;
  redirect_uri?: string | undefined;
  code_verifier?: string | undefined;
  client_id?: string | undefined;
  resource?: string | undefined;
  refresh_token?: string | undefined;
  scope?: string | undefined;
}

/** The grant types the token endpoint exchanges, one module each (`grant-types/`). */
const GRANT_TYPES: Record<string, (deps: OAuthDeps, params: TokenParams) => Promise<TokenResponse>> = {
  authorization_code: redeemCode,
  refresh_token: refresh,
};

/** The grant types exchanged, as the metadata's `grant_types_supported` must list them. */
export const SUPPORTED_GRANT_TYPES: readonly string[] = Object.keys(GRANT_TYPES);

/** The token endpoint (`POST /oauth/token`): the grant type's exchange, or RFC 6749 §5.2's error. */
export async function token(deps: OAuthDeps, params: TokenParams): Promise<TokenResponse> {
  const grantType = params.grant_type;
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
  const exchange = Object.hasOwn(GRANT_TYPES, grantType) ? GRANT_TYPES[grantType] : undefined;
  if (!exchange)
    throw new OAuthError('unsupported_grant_type', `Supported: ${Object.keys(GRANT_TYPES).join(', ')}.`);
  return exchange(deps, params);
}
