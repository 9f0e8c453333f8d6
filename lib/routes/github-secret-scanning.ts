import * as z from 'zod';
import { AppError } from '#lib/errors';
import { kib, thousands } from '#lib/http/openapi-tags';
import {
  fetchPublishedKeys,
  GITHUB_PUBLIC_KEYS_URL,
  GithubSignatureVerifier,
  type KeyFetcher,
} from '#lib/leaks/github-keys';
import { revokeLeakedKeys } from '#lib/leaks/revoke-leaked';
import { GITHUB_LIMITS } from '#lib/limits';
import { countMetric, logger } from '#lib/observability';
import { Reported } from './report-leaked-keys.ts';
import { defineRoute, LEAK_ROUTE } from './route-module.ts';

/** The token type this service registers with GitHub's secret scanning partner program. */
export const GITHUB_TOKEN_TYPE = 'svc_mcp_api_key';

/** GitHub's match format; fields it may add later are accepted and ignored. */
export const GithubMatches = z
  .array(
    z.looseObject({
      token: Reported,
      type: z.string().max(256).optional(),
      url: z.string().max(2048).optional(),
      source: z.string().max(256).optional(),
    }),
  )
  .min(1, 'must hold at least 1 match')
  .max(GITHUB_LIMITS.maxMatches, `must hold at most ${GITHUB_LIMITS.maxMatches} matches`)
  .meta({ id: 'GithubSecretScanningMatches' });

export const GithubVerdicts = z
  .array(
    z.object({
      token_hash: z.string().meta({ description: 'SHA-256 (hex) of the reported token.' }),
      token_type: z.literal(GITHUB_TOKEN_TYPE),
      label: z.enum(['true_positive', 'false_positive']),
    }),
  )
  .meta({ id: 'GithubSecretScanningVerdicts' });

/**
 * POST /v1/mcp/secret-scanning/github (contract §11): GitHub's partner program posts matches
 * signed with its key. Only a body whose signature verifies is read; genuine, active keys are
 * revoked and every match is labelled, by the SHA-256 of the token, never the token.
 */
export default defineRoute({
  name: 'github-secret-scanning',
  operationId: 'githubSecretScanning',
  method: 'POST',
  path: '/v1/mcp/secret-scanning/github',
  auth: 'signature',
  summary: 'GitHub secret scanning partner endpoint',
  description: `Called by GitHub with \`Github-Public-Key-Identifier\` and \`Github-Public-Key-Signature\` (ECDSA P-256, SHA-256, over the raw body), checked before the body is read: no user token, a bad signature is 401. True positives are revoked; every match is answered by the SHA-256 of its token. 1–${thousands(GITHUB_LIMITS.maxMatches)} matches in at most ${kib(GITHUB_LIMITS.maxBodyBytes)} (413 \`payload_too_large\` above).`,
  tag: 'leak-response',
  request: { body: GithubMatches },
  success: { status: 200, description: 'A label per match, in order.', schema: GithubVerdicts },
  ...LEAK_ROUTE,
  // GitHub sends large batches in one request (decisions: GitHub's batches).
  maxBodyBytes: GITHUB_LIMITS.maxBodyBytes,
  // Where the deployment fetches GitHub's keys from (setting `githubPublicKeysUrl`).
  environment: (settings) => ({ GITHUB_PUBLIC_KEYS_URL: settings.githubPublicKeysUrl }),
  // GitHub's published keys; local mode and the tests supply their own (`githubKeys`).
  dependencies: {
    githubKeys: ({ config }): KeyFetcher =>
      fetchPublishedKeys(config.githubPublicKeysUrl ?? GITHUB_PUBLIC_KEYS_URL),
  },
  // The signature is checked over the raw bytes before anything is parsed or changed.
  verify: (_runtime, { githubKeys }) => {
    const signatures = new GithubSignatureVerifier(githubKeys);
    return async ({ headers, rawBody }) => {
      const valid = await signatures.verify({
        keyIdentifier: headers['github-public-key-identifier'],
        signature: headers['github-public-key-signature'],
        rawBody,
      });
      if (valid) return;
      // The identifier is public (GitHub publishes it); the signature and body are not logged.
      logger.warn('github signature refused', {
        key_identifier: headers['github-public-key-identifier']?.slice(0, 128) ?? null,
      });
      countMetric('GithubSignatureFailures');
      throw new AppError('invalid_signature', 'The request is not signed by a GitHub secret scanning key.');
    };
  },
  handle:
    ({ service }) =>
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
});
