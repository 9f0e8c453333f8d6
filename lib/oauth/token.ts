import type { OAuthDeps } from './deps.ts';
import { OAuthError } from './errors.ts';
import { redeemCode } from './grant-types/authorization-code.ts';
import { exchangeIdJag } from './grant-types/jwt-bearer.ts';
import { refresh } from './grant-types/refresh-token.ts';
import { grantTypesSupported, JWT_BEARER_GRANT } from './metadata.ts';
import type { TokenParams } from './token-params.ts';
import type { AccessTokenResponse, TokenResponse } from './tokens.ts';

export type { TokenParams } from './token-params.ts';
export type { AccessTokenResponse, TokenResponse } from './tokens.ts';

type Exchange = (deps: OAuthDeps, params: TokenParams) => Promise<TokenResponse | AccessTokenResponse>;

/** The grant types the token endpoint exchanges, one module each (`grant-types/`). */
const GRANT_TYPES: Record<string, Exchange> = {
  authorization_code: redeemCode,
  refresh_token: refresh,
  [JWT_BEARER_GRANT]: exchangeIdJag,
};

/** Every grant type a module here exchanges (the metadata lists those a deployment has on). */
export const EXCHANGED_GRANT_TYPES: readonly string[] = Object.keys(GRANT_TYPES);

/** The token endpoint (`POST /oauth/token`): the grant type's exchange, or RFC 6749 §5.2's error. */
export function token(
  deps: OAuthDeps,
  params: TokenParams & { grant_type: 'authorization_code' | 'refresh_token' },
): Promise<TokenResponse>;
export function token(deps: OAuthDeps, params: TokenParams): Promise<TokenResponse | AccessTokenResponse>;
export async function token(
  deps: OAuthDeps,
  params: TokenParams,
): Promise<TokenResponse | AccessTokenResponse> {
  const grantType = params.grant_type;
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
  const supported = grantTypesSupported(deps.oauth);
  if (!supported.includes(grantType))
    throw new OAuthError('unsupported_grant_type', `Supported: ${supported.join(', ')}.`);
  return (GRANT_TYPES[grantType] as Exchange)(deps, params);
}
