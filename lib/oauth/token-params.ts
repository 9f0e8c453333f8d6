/**
 * What the token endpoint and its grant types share: one module both import, so the endpoint
 * (token.ts) and the grant types (grant-types/) import no circle.
 */

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
  assertion?: string | undefined;
}
