import { githubKeysUrl, githubSecretScanningHandler } from '#lib/handlers/github-secret-scanning';
import { fetchPublishedKeys, GithubSignatureVerifier } from '#lib/leaks/github-keys';
import { getRuntime } from '#lib/runtime';

/** Lambda entry point; see lib/handlers/github-secret-scanning.ts. */
export const handler = githubSecretScanningHandler(
  getRuntime(),
  new GithubSignatureVerifier(fetchPublishedKeys(githubKeysUrl(process.env))),
);
