import { describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import { toProblem } from '#lib/http/problem';

describe('the error mapper', () => {
  it('names a use case’s input problems by the request’s fields', () => {
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

  it('writes no errors member when the error lists none', () => {
    expect(toProblem(new AppError('not_found', 'API key not found.'), 'req-1').body).not.toHaveProperty(
      'errors',
    );
  });
});
