import type { z } from 'zod';
import type { ErrorCode } from '#lib/errors';
import type { ApiTag } from '#lib/http/openapi-tags';
import { type PublicRouteRequest, publicRoute, type Reply, type RouteRequest, route } from '#lib/http/route';
import { LEAK_LIMITS, type Settings } from '#lib/limits';
import type { Runtime } from '#lib/runtime';

/**
 * How a route authenticates. `jwt`: the user JWT authorizer; `step-up`: the same plus a login
 * from the last 900 s and a verified email (routes that mint a secret); `none`: anyone;
 * `signature`: anyone whose body carries a valid signature (checked by the route's `verify`).
 */
export type RouteAuth = 'jwt' | 'step-up' | 'none' | 'signature';

/** The tables a grant names: the keys table, its by-user index, the memberships table. */
export type GrantTarget = 'keys' | 'keys-by-user' | 'memberships';

/** One IAM statement of a function's role, on this stack's own tables. */
export interface Grant {
  actions: string[];
  on: GrantTarget[];
  conditions?: Record<string, unknown>;
}

/** What a function may do: its DynamoDB statements, and whether it derives the pepper (KMS). */
export interface Grants {
  /** Derives the pepper (kms:GenerateMac); its role goes under the pepper key's IAM path. */
  pepper: boolean;
  dynamodb: Grant[];
}

/**
 * The codes the middleware stack itself can answer, by authentication: every route can answer
 * these besides its own (`errors`).
 */
const STACK: ErrorCode[] = [
  'invalid_json',
  'validation_failed',
  'unauthorized',
  'payload_too_large',
  'unsupported_media_type',
  'internal_error',
  'dependency_unavailable',
];
const PUBLIC = STACK.filter((c) => c !== 'unauthorized');
export const STACK_CODES: Record<RouteAuth, ErrorCode[]> = {
  jwt: STACK,
  'step-up': [...STACK, 'reauthentication_required', 'email_not_verified'],
  none: PUBLIC,
  signature: [...PUBLIC, 'invalid_signature'],
};

/**
 * The deployment settings a route may read for its function's environment: the CDK app's settings
 * (`infra/settings.ts`) satisfy it, and `lib/` names no type of `infra/`.
 */
export interface RouteDeploymentSettings {
  /** Where GitHub's secret scanning public keys are fetched from. */
  readonly githubPublicKeysUrl: string;
}

/**
 * What a route builds for itself besides the runtime, by name (a source of keys it checks
 * signatures with): each entry builds its default, and whoever builds the handler may supply
 * any of them instead (local mode, tests).
 */
export type DependencyBuilders<D> = { [K in keyof D]: (runtime: Runtime) => D[K] };

/** The dependencies a route module builds, by name (none for one that declares none). */
export type DependenciesOf<M extends { dependencies?: object }> = M extends unknown
  ? {
      [K in keyof NonNullable<M['dependencies']>]: NonNullable<M['dependencies']>[K] extends (
        runtime: Runtime,
      ) => infer T
        ? T
        : never;
    }
  : never;

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** What whoever builds the handlers of these routes may supply instead of what they build, by name. */
export type SuppliedDependencies<M extends { dependencies?: object }> = Partial<
  Intersection<DependenciesOf<M>>
>;

/** What `handle` is given: the validated input, and the caller where a user token is asked for. */
type Input<A extends RouteAuth, B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType> = A extends
  | 'jwt'
  | 'step-up'
  ? RouteRequest<z.output<B>, z.output<Q>, z.output<P>>
  : PublicRouteRequest<z.output<B>, z.output<Q>, z.output<P>>;

/** One management API endpoint: everything about it, in one module (docs/architecture.md). */
export interface RouteModule<
  A extends RouteAuth = RouteAuth,
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  D extends object = object,
> {
  /** Its Lambda function: the file in functions/ and the CDK function's name. */
  name: string;
  /** The OpenAPI operation id, also the operation name in logs and metrics. */
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  auth: A;
  summary: string;
  /** What a reader of the OpenAPI document needs beyond the summary (linters ask for one). */
  description: string;
  /** The OpenAPI tag that groups it (`API_TAGS` in lib/http/openapi-tags.ts). */
  tag: ApiTag;
  request: {
    /** The body schema; a function of the settings where a limit is configurable. */
    body?: B | ((settings: Pick<Settings, 'maxExpiryDays'>) => B);
    /** The body may be left out (OpenAPI `required: false`). @default false */
    bodyOptional?: boolean;
    query?: Q;
    params?: P;
  };
  /** Largest accepted body. @default REQUEST_LIMITS.maxBodyBytes */
  maxBodyBytes?: number;
  /** The success answer. `issuesKey`: 201 with the key once, its Location and no-store. */
  success: { status: 200 | 201 | 202; description: string; schema: z.ZodType; issuesKey?: boolean };
  /** The codes this route answers besides the stack's own (`STACK_CODES[auth]`). @default none */
  errors?: ErrorCode[];
  /** What its function's role may do. */
  grants: Grants;
  /** The API Gateway route's throttle, when it has its own (leak reports). */
  throttle?: 'leak-report';
  /**
   * What its function's environment holds beyond what every function gets, from the deployment
   * settings. @default nothing more
   */
  environment?: (settings: RouteDeploymentSettings) => Record<string, string>;
  /** What it builds for itself, by name; `verify` and `handle` are given them. @default none */
  dependencies?: DependencyBuilders<D>;
  /** For `signature` routes: checks the raw request before anything is parsed; throws to refuse. */
  verify?: (
    runtime: Runtime,
    dependencies: D,
  ) => (request: { headers: Record<string, string | undefined>; rawBody: Buffer }) => Promise<void>;
  /** The use case: validated input in, a reply out. */
  handle: (runtime: Runtime, dependencies: D) => (request: Input<A, B, Q, P>) => Promise<Reply>;
}

/** A 200 answer with `body`: what a route that reads or changes in place returns. */
export const ok = (body: unknown) => ({ status: 200, body });

/**
 * Declares a route; the type parameters tie `handle`'s input to the route's schemas, and keep the
 * names and types of its dependencies for whoever supplies them.
 */
export const defineRoute = <
  const N extends string,
  A extends RouteAuth,
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  // biome-ignore lint/complexity/noBannedTypes: a route without dependencies has none by any name
  D extends object = {},
>(
  module: RouteModule<A, B, Q, P, D> & { name: N },
): RouteModule & { name: N; dependencies?: DependencyBuilders<D> } =>
  module as unknown as RouteModule & { name: N; dependencies?: DependencyBuilders<D> };

/**
 * What every cursor-paged list shares: `invalid_cursor` (a cursor is bound to its caller and its
 * list) besides its own codes, and the pepper, from which the cursor's MAC key derives.
 */
export const pagedList = (dynamodb: Grant[], errors: ErrorCode[] = []) =>
  ({
    errors: ['invalid_cursor', ...errors],
    grants: { pepper: true, dynamodb },
  }) satisfies Pick<RouteModule, 'errors' | 'grants'>;

/** Every code a route can answer: the stack's for its authentication, then its own. */
export const routeErrorCodes = (module: RouteModule): ErrorCode[] => [
  ...STACK_CODES[module.auth],
  ...(module.errors ?? []),
];

/** The route's body schema under the given settings. */
export function bodySchema(module: RouteModule, settings: Pick<Settings, 'maxExpiryDays'>) {
  const body = module.request.body;
  return typeof body === 'function' ? body(settings) : body;
}

/**
 * The Lambda handler of a route: the one middleware stack around its use case, given the
 * dependencies it declares, each the supplied one or else the one it builds.
 */
export function routeHandler(
  module: RouteModule,
  runtime: Runtime,
  supplied: Partial<Record<string, unknown>> = {},
) {
  const { service } = runtime;
  const dependencies = Object.fromEntries(
    Object.entries((module.dependencies ?? {}) as Record<string, (runtime: Runtime) => unknown>).map(
      ([name, build]) => [name, supplied[name] ?? build(runtime)],
    ),
  );
  const spec = {
    operation: module.operationId,
    body: bodySchema(module, service.settings),
    query: module.request.query,
    path: module.request.params,
    maxBodyBytes: module.maxBodyBytes,
    verify: module.verify?.(runtime, dependencies),
    now: service.now,
  };
  // The stack validated each part with the module's own schemas; `handle` was typed by them.
  const handle = module.handle(runtime, dependencies) as (
    request: PublicRouteRequest<unknown, unknown, unknown>,
  ) => Promise<Reply>;
  if (module.auth === 'jwt' || module.auth === 'step-up')
    return route({ ...spec, stepUp: module.auth === 'step-up' }, handle);
  return publicRoute(spec, handle);
}

/** Reads a key and, in one transaction, changes it, its slot item and its event. */
export const KEY_WRITE: Grant = {
  actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
  on: ['keys'],
};

/**
 * What the two leak routes share: their body limit, their own throttle, and a leak revocation's
 * grants: it derives the digest, reads a report's keys together (`BatchGetItem`, 100 a call),
 * then revokes each true positive as `KEY_WRITE` (whose `GetItem` covers a revocation that loses
 * a race and reads the key back: docs/iam.md).
 */
export const LEAK_ROUTE = {
  maxBodyBytes: LEAK_LIMITS.maxBodyBytes,
  grants: { pepper: true, dynamodb: [{ actions: ['dynamodb:BatchGetItem'], on: ['keys'] }, KEY_WRITE] },
  throttle: 'leak-report',
} as const satisfies Pick<RouteModule, 'maxBodyBytes' | 'grants' | 'throttle'>;
