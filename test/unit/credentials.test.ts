import { describe, expect, it } from 'vitest';
import { lambdaCredentials } from '#lib/credentials';

/** Where an AWS client's credentials come from (lib/credentials.ts). */
describe('the credentials the service’s own AWS clients use', () => {
  it('are the environment’s in Lambda, and the caller’s own choice elsewhere', () => {
    const saved = process.env.AWS_LAMBDA_FUNCTION_NAME;
    try {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
      expect(lambdaCredentials()).toBeUndefined();
      process.env.AWS_LAMBDA_FUNCTION_NAME = 'create-key';
      expect(typeof lambdaCredentials()).toBe('function');
    } finally {
      if (saved === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
      else process.env.AWS_LAMBDA_FUNCTION_NAME = saved;
    }
  });
});
