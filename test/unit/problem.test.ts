import { describe, expect, it } from 'vitest';
import { AppError, DependencyError } from '#lib/errors';
import { PROBLEM_CONTENT_TYPE, RETRY_AFTER_SECONDS, toProblem } from '#lib/http/problem';

/** The one error mapper: every thrown value becomes an RFC 9457 problem with a request id. */
describe('the problem of a thrown value', () => {
  it('keeps an expected error: its status, code, detail, headers, field errors and extensions', () => {
    const error = new AppError('validation_failed', 'The request failed validation.', {
      errors: [{ path: 'name', message: 'is required' }],
      headers: { 'x-reason': 'test' },
    });
    expect(toProblem(error, 'req-1')).toEqual({
      status: 400,
      code: 'validation_failed',
      headers: { 'x-reason': 'test' },
      body: {
        type: 'urn:problem:svc-mcp-api-keys:validation_failed',
        title: 'Request failed validation',
        status: 400,
        detail: 'The request failed validation.',
        code: 'validation_failed',
        request_id: 'req-1',
        errors: [{ path: 'name', message: 'is required' }],
      },
    });
    const revoked = new AppError('key_revoked', 'The key is revoked.', { extensions: { replaced_by: 'k2' } });
    const reply = toProblem(revoked, 'req-2');
    expect(reply.body).toMatchObject({ status: 409, replaced_by: 'k2', detail: 'The key is revoked.' });
    // No field errors, no `errors` member.
    expect(reply.body).not.toHaveProperty('errors');
    expect(reply.headers).toEqual({});
  });

  it('answers a failing dependency with 503 and Retry-After, saying nothing of the cause', () => {
    const reply = toProblem(new DependencyError('table keys-123 throttled'), 'req-3');
    expect(reply.status).toBe(503);
    expect(reply.headers).toEqual({ 'retry-after': RETRY_AFTER_SECONDS });
    expect(reply.body).toEqual({
      type: 'urn:problem:svc-mcp-api-keys:dependency_unavailable',
      title: 'Service temporarily unavailable',
      status: 503,
      detail: 'A dependency is unavailable; retry shortly.',
      code: 'dependency_unavailable',
      request_id: 'req-3',
    });
  });

  it('answers anything else with a 500 whose body says nothing about the cause', () => {
    for (const thrown of [new TypeError('secret svc_mcp_v1_abc at line 3'), 'oops', undefined]) {
      const reply = toProblem(thrown, 'req-4');
      expect(reply.status).toBe(500);
      expect(reply.headers).toEqual({});
      expect(reply.body).toEqual({
        type: 'urn:problem:svc-mcp-api-keys:internal_error',
        title: 'Internal server error',
        status: 500,
        detail: 'An unexpected error occurred.',
        code: 'internal_error',
        request_id: 'req-4',
      });
    }
    expect(PROBLEM_CONTENT_TYPE).toBe('application/problem+json');
  });
});

describe('the field paths of a use case’s input problems', () => {
  it('names them by the request’s fields', () => {
    const err = new AppError('workspace_access_denied', 'You lack the access.', {
      errors: [
        { input: 'workspaceIds', index: 2, message: 'not a member' },
        { input: 'expiresInDays', message: 'must be at most 90' },
        { path: 'name', message: 'too long' },
      ],
    });
    expect(toProblem(err, 'req-1').body.errors).toEqual([
      { path: 'workspace_ids.2', message: 'not a member' },
      { path: 'expires_in_days', message: 'must be at most 90' },
      { path: 'name', message: 'too long' },
    ]);
  });
});
