import * as z from 'zod';
import type { OAuthDeps } from '#lib/oauth/deps';
import type { OAuthErrorCode } from '#lib/oauth/errors';
import type { Grants } from '../route-module.ts';

/**
 * How an OAuth endpoint reads its request: the query (`GET /oauth/authorize`), a form body
 * (RFC 6749's token and RFC 7009's revocation requests), a JSON body (RFC 7591 registration), or
 * a security event token (RFC 8935: the body is the JWT, `application/secevent+jwt`).
 * Each parameter may be sent once (RFC 6749 §3.1); the stack refuses a repeated one.
 */
export type OAuthInput = 'none' | 'query' | 'form' | 'json' | 'secevent';

/** What an OAuth route answers: JSON, a page for a person, or a redirect (`headers.location`, no body). */
export interface OAuthReply {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  page?: { title: string; message: string };
}

/**
 * Where a deployment routes the endpoint: the OAuth API (the OAuth function), or the MCP API,
 * whose `McpKeyAuthorizer` answers it itself (a resource's metadata, the registration fallback
 * at the MCP origin's root). Local mode serves both kinds from the OAuth function, on one origin.
 */
export type OAuthDeployment = 'oauth-api' | 'mcp-api';

/** One endpoint of the OAuth authorization server: everything about it, in one module. */
export interface OAuthRouteModule<S extends z.ZodType = z.ZodType> {
  /** The OpenAPI operation id, also the operation name in logs and metrics. */
  operationId: string;
  method: 'GET' | 'POST';
  path: string;
  /** It also answers the paths under `path` (RFC 8414 §3.1 and RFC 9728 §3.1 path insertion). @default false */
  under?: boolean;
  /** Other paths it answers, each with where a deployment routes it. @default none */
  alsoAt?: readonly { path: string; deployment: OAuthDeployment }[];
  deployment: OAuthDeployment;
  summary: string;
  description: string;
  /** How the request is read, and the schema of what is read. */
  input: OAuthInput;
  schema?: S;
  /** The refusals it answers with (RFC 6749 §5.2 JSON, or a page where nothing may be redirected). */
  errors: readonly OAuthErrorCode[];
  /**
   * `page`: its refusals are a page for a person, not JSON for a client; `secevent`: RFC 8935's
   * `{ err, description }` for an IdP's push. @default 'json'
   */
  errorsAs?: 'json' | 'page' | 'secevent';
  /** The success answer, for the OpenAPI document. */
  success: { status: 200 | 201 | 202 | 302; description: string; schema?: z.ZodType };
  /** Browser-based clients call it from any origin: it answers a CORS preflight. @default false */
  preflight?: boolean;
  /** The route's own stage throttle, beside the stage's default. @default the stage's */
  throttle?: 'registration' | 'token';
  /** In the OpenAPI document. @default true */
  openapi?: boolean;
  /** What its function's role needs for it. */
  grants: Grants;
  /** The use case: the parsed request in, a reply out. */
  handle: (deps: OAuthDeps) => (request: { input: z.output<S>; path: string }) => Promise<OAuthReply>;
}

/** Declares an OAuth route; its schema types `handle`'s input. */
export const defineOAuthRoute = <S extends z.ZodType>(module: OAuthRouteModule<S>): OAuthRouteModule =>
  module as unknown as OAuthRouteModule;

/** Every path a route answers (exactly, or with `under`, below), with where a deployment routes it. */
export const pathsOf = (module: OAuthRouteModule) => [
  { path: module.path, deployment: module.deployment },
  ...(module.alsoAt ?? []),
];

/** Whether `module` answers `path`. */
export const answers = (module: OAuthRouteModule, path: string): boolean =>
  pathsOf(module).some((p) => p.path === path || (module.under === true && path.startsWith(`${p.path}/`)));

/** A JSON answer an OAuth client reads (no-store unless `headers` says otherwise). */
export const jsonReply = (
  status: number,
  json: unknown,
  headers: Record<string, string> = {},
): OAuthReply => ({
  status,
  json,
  headers,
});

/** One parameter of a query or form schema: a string sent at most once, or not at all. */
export const param = (description: string) => z.string().optional().meta({ description });
