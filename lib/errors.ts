/**
 * The one error model. Every expected failure is an AppError carrying a machine `code`;
 * the catalog below gives each code its HTTP status and title. The contract's status table,
 * the OpenAPI error responses and the tests all read this constant.
 */
export const ERROR_CATALOG = {
  invalid_json: { status: 400, title: 'Request body is not valid JSON' },
  validation_failed: { status: 400, title: 'Request failed validation' },
  invalid_cursor: { status: 400, title: 'Invalid pagination cursor' },
  unauthorized: { status: 401, title: 'Authentication required' },
  reauthentication_required: { status: 401, title: 'Recent authentication required' },
  invalid_signature: { status: 401, title: 'Invalid signature' },
  email_not_verified: { status: 403, title: 'Email address not verified' },
  account_disabled: { status: 403, title: 'Account disabled by the identity provider' },
  workspace_access_denied: { status: 403, title: 'Workspace access denied' },
  workspace_admin_required: { status: 403, title: 'Workspace administrator required' },
  workspace_policy_denied: { status: 403, title: 'Denied by the workspace policy' },
  not_found: { status: 404, title: 'API key not found' },
  request_not_found: { status: 404, title: 'Authorization request not found' },
  key_revoked: { status: 409, title: 'API key is revoked' },
  key_expired: { status: 409, title: 'API key is expired' },
  not_rotatable: { status: 409, title: 'Connected app cannot be rotated' },
  conflict: { status: 409, title: 'Concurrent modification' },
  key_limit_reached: { status: 409, title: 'Active API key limit reached' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  internal_error: { status: 500, title: 'Internal server error' },
  dependency_unavailable: { status: 503, title: 'Service temporarily unavailable' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** One problem inside a request, as the HTTP edge names it: `{ path: 'workspace_ids.0', message }`. */
export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * One problem with a use case's input, in the use case's own terms (`{ input: 'workspaceIds',
 * index: 1, message }`): the domain knows its inputs, not the request's fields; the HTTP edge
 * names the field (`workspace_ids.1`, lib/http/problem.ts).
 */
export interface InputProblem {
  input: string;
  /** The item of a list input. */
  index?: number;
  message: string;
}

export interface AppErrorOptions {
  errors?: (FieldProblem | InputProblem)[];
  headers?: Record<string, string>;
  /** Extension members of the problem body (RFC 9457 §3.2), e.g. `replaced_by`. */
  extensions?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors: (FieldProblem | InputProblem)[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, string>;

  constructor(code: ErrorCode, detail: string, options: AppErrorOptions = {}) {
    super(detail, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.title = ERROR_CATALOG[code].title;
    this.detail = detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;

/**
 * Recognises a dependency (DynamoDB, KMS, network) that failed or throttled after the SDK's own
 * retries. The error mapper answers these with 503 and Retry-After; anything else is a 500. The
 * adapters (lib/store/) and the leak reports' key fetch throw DependencyError; the HTTP edge asks
 * isDependencyFailure.
 */
const TRANSIENT_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'KMSInternalException',
  'DependencyTimeoutException',
  'KMSInvalidStateException',
  'KeyUnavailableException',
  'DisabledException',
]);

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND']);

/** A dependency failed after its own retries; answered 503 with Retry-After, never as its cause. */
export class DependencyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DependencyError';
  }
}

/** Whether `err` is a failing dependency (503) rather than a defect (500). */
export function isDependencyFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err instanceof DependencyError) return true;
  if (TRANSIENT_NAMES.has(err.name)) return true;
  const meta = err as { $fault?: string; $retryable?: unknown; code?: string; $metadata?: unknown };
  if (meta.$metadata !== undefined && (meta.$fault === 'server' || meta.$retryable !== undefined))
    return true;
  if (meta.code && NETWORK_CODES.has(meta.code)) return true;
  return false;
}
