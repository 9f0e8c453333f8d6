import type { Problem } from './schema.gen.ts';

export type { Problem } from './schema.gen.ts';
/** The API's machine codes, plus one for an answer that is not problem+json (a proxy's 502…). */
export type ErrorCode = Problem['code'] | 'unexpected_response';
/** One invalid field of a 400 `validation_failed`: its `path` (e.g. `workspace_ids.0`) and what is wrong. */
export type FieldProblem = NonNullable<Problem['errors']>[number];

/** A parsed `WWW-Authenticate` challenge, e.g. RFC 9470's step-up request. */
export interface AuthChallenge {
  /** The authentication scheme, e.g. `Bearer`. */
  scheme: string;
  /** `insufficient_user_authentication` when a more recent login is needed (RFC 9470). */
  error: string | undefined;
  /** Seconds: the login must be at most this old (RFC 9470 `max_age`). */
  maxAge: number | undefined;
  /** Authentication context classes the API wants (RFC 9470 `acr_values`). */
  acrValues: string | undefined;
  /** Every parameter of the challenge, by lower-cased name, unquoted. */
  params: Record<string, string>;
}

/** Parses the first challenge of a `WWW-Authenticate` header; undefined when absent or unreadable. */
export function parseChallenge(header: string | null | undefined): AuthChallenge | undefined {
  const match = header ? /^\s*([A-Za-z][\w!#$%&'*+.^`|~-]*)\s*(.*)$/.exec(header) : null;
  if (!match?.[1]) return undefined;
  const params: Record<string, string> = {};
  const param = /([\w!#$%&'*+.^`|~-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*,?\s*/gy;
  const rest = match[2] ?? '';
  for (let m = param.exec(rest); m; m = param.exec(rest)) {
    const name = (m[1] ?? '').toLowerCase();
    params[name] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  }
  const maxAge = params.max_age === undefined ? Number.NaN : Number(params.max_age);
  return {
    scheme: match[1],
    error: params.error,
    maxAge: Number.isInteger(maxAge) && maxAge >= 0 ? maxAge : undefined,
    acrValues: params.acr_values,
    params,
  };
}

/**
 * Every non-2xx answer of the API, typed. `code` is the API's machine code (API Gateway's own
 * `{"message":"Unauthorized"}` becomes `unauthorized`), `errors` lists each field problem, and
 * `challenge` is the parsed `WWW-Authenticate` header (RFC 9470 on `reauthentication_required`).
 */
export class ProblemError extends Error {
  /** Always `ProblemError`. */
  override readonly name = 'ProblemError';
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The API's machine code; `unexpected_response` when the answer was not problem+json. */
  readonly code: ErrorCode;
  /** The code's short, fixed title (RFC 9457 `title`). */
  readonly title: string;
  /** What went wrong with this request, for people (RFC 9457 `detail`); may be empty. */
  readonly detail: string;
  /** Each invalid field of a 400 `validation_failed`; empty otherwise. */
  readonly errors: FieldProblem[];
  /** The request's id (problem `request_id`, else the `x-request-id` header), to quote when reporting it. */
  readonly requestId: string | undefined;
  /** The parsed `WWW-Authenticate` challenge, when the answer had one (401). */
  readonly challenge: AuthChallenge | undefined;
  /** Seconds to wait before retrying (503 `dependency_unavailable`). */
  readonly retryAfter: number | undefined;
  /** On 409 `key_revoked` after a rotation: the key that replaced it. */
  readonly replacedBy: string | undefined;

  constructor(init: {
    status: number;
    code: ErrorCode;
    title: string;
    detail: string;
    errors?: FieldProblem[];
    requestId?: string | undefined;
    challenge?: AuthChallenge | undefined;
    retryAfter?: number | undefined;
    replacedBy?: string | undefined;
  }) {
    super(init.detail || init.title);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.errors = init.errors ?? [];
    this.requestId = init.requestId;
    this.challenge = init.challenge;
    this.retryAfter = init.retryAfter;
    this.replacedBy = init.replacedBy;
  }

  /** True when signing in again (a fresh login, or any valid token) and retrying can succeed. */
  get needsSignIn(): boolean {
    return this.code === 'reauthentication_required' || this.code === 'unauthorized';
  }

  /** Reads a failed response (its body is consumed). Never throws. */
  static async from(response: Response): Promise<ProblemError> {
    const text = await response.text().catch(() => '');
    let body: Partial<Problem> & { message?: unknown; replaced_by?: unknown } = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object') body = parsed;
    } catch {
      // not JSON: described by its status below
    }
    const headers = response.headers;
    const retryAfter = Number(headers.get('retry-after') ?? Number.NaN);
    const common = {
      status: response.status,
      requestId:
        (typeof body.request_id === 'string' ? body.request_id : undefined) ??
        headers.get('x-request-id') ??
        headers.get('apigw-requestid') ??
        undefined,
      challenge: parseChallenge(headers.get('www-authenticate')),
      retryAfter: Number.isFinite(retryAfter) ? retryAfter : undefined,
    };
    if (typeof body.code === 'string' && typeof body.title === 'string') {
      return new ProblemError({
        ...common,
        code: body.code,
        title: body.title,
        detail: typeof body.detail === 'string' ? body.detail : '',
        errors: Array.isArray(body.errors) ? body.errors : [],
        replacedBy: typeof body.replaced_by === 'string' ? body.replaced_by : undefined,
      });
    }
    if (response.status === 401) {
      // API Gateway's JWT authorizer: missing, invalid or expired token.
      return new ProblemError({
        ...common,
        code: 'unauthorized',
        title: 'Authentication required',
        detail: 'Your session is missing or has expired; sign in again.',
      });
    }
    const message = typeof body.message === 'string' ? body.message : response.statusText;
    return new ProblemError({
      ...common,
      code: 'unexpected_response',
      title: `Unexpected answer (${response.status})`,
      detail: message || `The service answered ${response.status}.`,
    });
  }
}
