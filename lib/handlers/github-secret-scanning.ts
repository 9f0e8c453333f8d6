import { AppError } from '#lib/errors';
import { GithubMatches } from '#lib/http/leak-schemas';
import { publicRoute } from '#lib/http/route';
import { GITHUB_PUBLIC_KEYS_URL, type GithubSignatureVerifier } from '#lib/leaks/github-keys';
import { revokeLeakedKeys } from '#lib/leaks/revoke-leaked';
import { GITHUB_LIMITS } from '#lib/limits';
import { countMetric, logger } from '#lib/observability';
import type { Runtime } from '#lib/runtime';

/** Where GitHub's keys are fetched from: `GITHUB_PUBLIC_KEYS_URL`, by default GitHub's own URL. */
export const githubKeysUrl = (env: NodeJS.ProcessEnv): string =>
  env.GITHUB_PUBLIC_KEYS_URL || GITHUB_PUBLIC_KEYS_URL;

/** The token type this service registers with GitHub's secret scanning partner program. */
export const GITHUB_TOKEN_TYPE = 'svc_mcp_api_key';

/**
 * POST /v1/mcp/secret-scanning/github (contract §11): GitHub's partner program posts matches
 * signed with its key. Only a body whose signature verifies is read; genuine, active keys are
 * revoked and every match is labelled, by the SHA-256 of the token, never the token.
 */
export function githubSecretScanningHandler({ service }: Runtime, signatures: GithubSignatureVerifier) {
  return publicRoute(
    {
      operation: 'githubSecretScanning',
      body: GithubMatches,
      maxBodyBytes: GITHUB_LIMITS.maxBodyBytes,
      now: service.now,
      // The signature is checked over the raw bytes before anything is parsed or changed.
      verify: async ({ headers, rawBody }) => {
        const valid = await signatures.verify({
          keyIdentifier: headers['github-public-key-identifier'],
          signature: headers['github-public-key-signature'],
          rawBody,
        });
        if (!valid) {
          // The identifier is public (GitHub publishes it); the signature and body are not logged.
          logger.warn('github signature refused', {
            key_identifier: headers['github-public-key-identifier']?.slice(0, 128) ?? null,
          });
          countMetric('GithubSignatureFailures');
          throw new AppError(
            'invalid_signature',
            'The request is not signed by a GitHub secret scanning key.',
          );
        }
      },
    },
    async ({ body }) => {
      const verdicts = await revokeLeakedKeys(
        service,
        body.map((match) => ({ token: match.token, source: match.url || null })),
        { type: 'github_secret_scanning', id: null },
      );
      logger.info('github secret scanning report', {
        matches: verdicts.length,
        genuine: verdicts.filter((v) => v.genuine).length,
        revoked: verdicts.filter((v) => v.revoked).length,
      });
      return {
        status: 200,
        body: verdicts.map((v) => ({
          token_hash: v.tokenHash,
          token_type: GITHUB_TOKEN_TYPE,
          label: v.genuine ? 'true_positive' : 'false_positive',
        })),
      };
    },
  );
}
