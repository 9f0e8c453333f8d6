import {
  ERROR_CATALOG,
  type ErrorCode,
  type InputProblem,
  isAppError,
  isDependencyFailure,
} from '#lib/errors';
import { RETRY_AFTER_SECONDS } from '#lib/limits';

export { RETRY_AFTER_SECONDS };

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const problemType = (code: ErrorCode): string => `urn:problem:svc-mcp-api-keys:${code}`;

export interface ProblemReply {
  status: number;
  code: ErrorCode;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * The one error mapper: any thrown value becomes an RFC 9457 problem. Expected errors keep
 * their detail; dependency failures are 503 with Retry-After; anything else is a 500 whose
 * body says nothing about the cause.
 */
export function toProblem(err: unknown, requestId: string): ProblemReply {
  if (isAppError(err)) {
    const errors = err.errors?.map((p) => ('input' in p ? { path: fieldPath(p), message: p.message } : p));
    return build(err.code, err.detail, requestId, err.headers, errors, err.extensions);
  }
  if (isDependencyFailure(err)) {
    return build('dependency_unavailable', 'A dependency is unavailable; retry shortly.', requestId, {
      'retry-after': RETRY_AFTER_SECONDS,
    });
  }
  return build('internal_error', 'An unexpected error occurred.', requestId);
}

/**
 * A use case's input as the request names it: its name in snake case (the API's JSON), then the
 * item's index (`workspaceIds`, 1 → `workspace_ids.1`).
 */
export function fieldPath({ input, index }: InputProblem): string {
  const field = input.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return index === undefined ? field : `${field}.${index}`;
}

function build(
  code: ErrorCode,
  detail: string,
  requestId: string,
  headers: Record<string, string> = {},
  errors?: { path: string; message: string }[],
  extensions: Record<string, string> = {},
): ProblemReply {
  const { status, title } = ERROR_CATALOG[code];
  return {
    status,
    code,
    headers,
    body: {
      type: problemType(code),
      title,
      status,
      detail,
      code,
      request_id: requestId,
      ...(errors && { errors }),
      ...extensions,
    },
  };
}
