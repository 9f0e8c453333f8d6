import type { Grants, GrantTarget } from '../route-module.ts';
import authorizationServerMetadata from './authorization-server-metadata.ts';
import authorize from './authorize.ts';
import identitySignals from './identity-signals.ts';
import type { OAuthDeployment, OAuthRouteModule } from './oauth-route.ts';
import { answers, pathsOf } from './oauth-route.ts';
import openidConfiguration from './openid-configuration.ts';
import protectedResourceMetadata from './protected-resource-metadata.ts';
import register from './register.ts';
import revoke from './revoke.ts';
import token from './token.ts';

/**
 * The OAuth authorization server (contract §15): one module per endpoint. The OAuth function's
 * routing and role, the OAuth API's routes and throttles, local mode's routing, the OpenAPI
 * document and the docs' endpoint table derive from this list; adding an endpoint is adding its
 * module here. The consent API is on the management routes (it takes the user's JWT).
 */
export const OAUTH_ROUTES: readonly OAuthRouteModule[] = [
  authorizationServerMetadata,
  openidConfiguration,
  protectedResourceMetadata,
  authorize,
  register,
  token,
  revoke,
  identitySignals,
];

/** The modules that answer `path`, whatever the method. */
export const oauthRoutesAt = (path: string): OAuthRouteModule[] =>
  OAUTH_ROUTES.filter((module) => answers(module, path));

/** Whether the OAuth function answers `path` (local mode serves every one of them on its one origin). */
export const servedByOAuth = (path: string): boolean => oauthRoutesAt(path).length > 0;

/** One route of the OAuth API: a method on a path of the OAuth function, and its own throttle. */
export interface OAuthApiRoute {
  method: 'GET' | 'POST' | 'OPTIONS';
  path: string;
  /** The route's own stage throttle, beside the stage's default. @default the stage's */
  throttle?: 'registration' | 'token';
}

/** The routes a deployment gives one API, preflights included. */
export function oauthApiRoutes(deployment: OAuthDeployment = 'oauth-api'): OAuthApiRoute[] {
  const routes = OAUTH_ROUTES.flatMap((module) =>
    pathsOf(module)
      .filter((p) => p.deployment === deployment)
      .map((p) => ({
        method: module.method,
        path: p.path,
        ...(module.throttle && { throttle: module.throttle }),
      })),
  );
  const preflights = OAUTH_ROUTES.filter((module) => module.preflight).flatMap((module) =>
    pathsOf(module)
      .filter((p) => p.deployment === deployment)
      .map((p) => ({ method: 'OPTIONS' as const, path: p.path })),
  );
  return [...routes, ...preflights];
}

/** Grants over several routes, one statement per set of targets that share the same actions. */
export function unionOfGrants(all: readonly Grants[]): Grants {
  const byTarget = new Map<GrantTarget, Set<string>>();
  for (const grants of all)
    for (const statement of grants.dynamodb)
      for (const target of statement.on) {
        const actions = byTarget.get(target) ?? new Set<string>();
        for (const action of statement.actions) actions.add(action);
        byTarget.set(target, actions);
      }
  const statements = new Map<string, { actions: string[]; on: GrantTarget[] }>();
  for (const [target, actions] of byTarget) {
    const sorted = [...actions].sort();
    const key = sorted.join(',');
    const statement = statements.get(key) ?? { actions: sorted, on: [] };
    statement.on.push(target);
    statements.set(key, statement);
  }
  return { pepper: all.some((g) => g.pepper), dynamodb: [...statements.values()] };
}

/**
 * The OAuth function's role: what its routes need together (the grant is a key item; requests and
 * registrations are items of the same table; memberships and policies are read on refresh; the
 * pepper digests tokens).
 */
export const OAUTH_GRANTS: Grants = unionOfGrants(OAUTH_ROUTES.map((module) => module.grants));
