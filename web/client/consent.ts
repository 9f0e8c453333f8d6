import type { KeysClientOptions } from './client.ts';
import { ProblemError } from './problem.ts';
import { createSender } from './send.ts';
import type { ApproveOAuthRequest, OAuthDecision, OAuthRequest } from './types.ts';

/**
 * The consent page's calls (contract §15 "The flow" 2): read an app's sign-in request, then
 * approve or deny it. Each decision answers where to send the browser next.
 */
export interface ConsentClient {
  /**
   * The request, which becomes the caller's (the first user who opens it owns it). 404
   * `request_not_found` once it expired (10 minutes), was decided, or belongs to someone else.
   */
  get(requestId: string): Promise<OAuthRequest>;
  /**
   * Approves: the grant is made under create's rules (a verified email, a recent login, the
   * memberships, roles and policies of `workspace_ids`); errors are create's. A repeat answers
   * the same `redirect_to`.
   */
  approve(requestId: string, body: ApproveOAuthRequest): Promise<OAuthDecision>;
  /** Denies: `redirect_to` tells the app `error=access_denied`. */
  deny(requestId: string): Promise<OAuthDecision>;
}

const requestPath = (id: string) => `/v1/mcp/oauth/requests/${encodeURIComponent(id)}`;

/** A typed client of the consent endpoints, with the same options as `createKeysClient`. */
export function createConsentClient(options: KeysClientOptions): ConsentClient {
  const send = createSender(options, ProblemError.from);
  return {
    get: (id) => send('GET', requestPath(id)),
    approve: (id, body) => send('POST', `${requestPath(id)}/approve`, body),
    deny: (id) => send('POST', `${requestPath(id)}/deny`),
  };
}
