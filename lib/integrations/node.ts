import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpKeyVerifier } from '#lib/verifier';
import type { AuthInfo } from './auth-info.ts';
import { type Checked, type McpKeyGuardOptions, requestChecker } from './guard.ts';
import { mcpCallOf } from './mcp-call.ts';
import { scopeRefusal } from './scopes.ts';

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** A Node request once `mcpKeyAuth` let it through: the caller is `auth`, as the MCP SDK reads it. */
export type McpAuthenticatedRequest = IncomingMessage & { auth?: AuthInfo };

/** `mcpKeyAuth`'s middleware: Express's `(req, res, next)`, or plain `node:http` with a `next` of your own. */
export type McpKeyAuthMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => Promise<void>;

/** The request's path without its query: Express's `originalUrl` keeps a mount point's prefix. */
function pathOf(req: IncomingMessage): string {
  // Stryker disable next-line StringLiteral: equivalent, an empty target resolves to the base's path, `/`
  const target = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  return new URL(target, 'http://localhost').pathname;
}

/**
 * Express (or any `(req, res, next)` Node server) middleware checking each request the way
 * contract §7 answers (contract §16): for a valid credential it sets `req.auth` (the MCP SDK's
 * `AuthInfo`, which the SDK's Streamable HTTP transport hands to tools as `extra.authInfo`) and
 * calls `next()`; otherwise it answers the denial (status, `WWW-Authenticate`, JSON-RPC body), or
 * with `resource` the Protected Resource Metadata for a GET of its URL. A verifier that throws
 * reaches `next(error)`.
 */
export function mcpKeyAuth(verifier: McpKeyVerifier, options: McpKeyGuardOptions = {}): McpKeyAuthMiddleware {
  const check = requestChecker(verifier, options);
  return async (req, res, next) => {
    let checked: Checked;
    try {
      checked = await check({
        method: req.method ?? 'GET',
        path: pathOf(req),
        authorization: req.headers.authorization,
        call: mcpCallOf((name) => headerValue(req.headers[name]), (req as { body?: unknown }).body),
      });
    } catch (err) {
      next(err);
      return;
    }
    if (checked.ok) {
      (req as McpAuthenticatedRequest).auth = checked.auth;
      next();
      return;
    }
    const { status, headers, body } = checked.answer;
    res.writeHead(status, headers).end(body);
  };
}

/**
 * For a Node server behind `mcpKeyAuth`: answers the refusal of an operation needing `scopes` the
 * caller (`req.auth`) lacks, and returns true; false, having written nothing, when it has them
 * (`requireScopes` in `res` terms):
 *
 * ```ts
 * if (req.headers['mcp-name'] === 'submit_form' && answerMissingScopes(req, res, ['svc.forms.write'])) return;
 * ```
 */
export function answerMissingScopes(
  req: McpAuthenticatedRequest,
  res: ServerResponse,
  scopes: readonly string[],
): boolean {
  const refusal = req.auth ? scopeRefusal(req.auth, scopes) : undefined;
  if (!refusal) return false;
  res.writeHead(refusal.status, refusal.headers).end(refusal.body);
  return true;
}
