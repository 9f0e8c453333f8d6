import { fromEnv } from '@aws-sdk/credential-provider-env';
import { inLambda } from './env.ts';

/**
 * In Lambda the runtime puts the function role's credentials in the environment: read them
 * there and nowhere else. The SDK's default chain would also try SSO, STS web identity, INI files
 * and instance metadata, which a function never uses and whose clients would load at cold start
 * (bundles alias that chain away: see `infra/constructs/service-function.ts`). Elsewhere
 * (local mode, tests) undefined: the caller's own choice applies.
 */
export function lambdaCredentials(): ReturnType<typeof fromEnv> | undefined {
  return inLambda() ? fromEnv() : undefined;
}

/**
 * Stands in for `@aws-sdk/credential-provider-node` (the default chain) in bundles that alias it
 * here: the SDK clients then find credentials in the environment only.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
