import { fetchPublishedKeys, GithubSignatureVerifier, type KeyFetcher } from '#lib/leaks/github-keys';
import type { Runtime } from '#lib/runtime';
import { applyWorkspacePolicyHandler } from './apply-workspace-policy.ts';
import { createKeyHandler } from './create-key.ts';
import { cutOffKeyHandler } from './cut-off-key.ts';
import { expirySweepHandler } from './expiry-sweep.ts';
import { getWorkspacePolicyHandler } from './get-workspace-policy.ts';
import { githubKeysUrl, githubSecretScanningHandler } from './github-secret-scanning.ts';
import { listEventsHandler } from './list-events.ts';
import { listKeysHandler } from './list-keys.ts';
import { listWorkspaceEventsHandler } from './list-workspace-events.ts';
import { listWorkspaceKeysHandler } from './list-workspace-keys.ts';
import { mcpAuthorizerHandler } from './mcp-authorizer.ts';
import { mcpServerHandler } from './mcp-server.ts';
import { putWorkspacePolicyHandler } from './put-workspace-policy.ts';
import { reportLeakedKeysHandler } from './report-leaked-keys.ts';
import { revokeKeyHandler } from './revoke-key.ts';
import { rotateKeyHandler } from './rotate-key.ts';

/**
 * Every Lambda handler of the service built from one runtime, keyed by its file in functions/.
 * The local service and the tests build handlers here; each Lambda entry point builds its own
 * from the process-wide runtime. The stream consumer (publish-events) needs a sink rather than
 * a runtime and is built from `publishEventsHandler`.
 */
export function makeHandlers(
  runtime: Runtime,
  options: {
    /** GitHub's secret scanning keys. @default fetched from GITHUB_PUBLIC_KEYS_URL or GitHub's URL */
    githubKeys?: KeyFetcher;
  } = {},
) {
  const githubKeys = options.githubKeys ?? fetchPublishedKeys(githubKeysUrl(process.env));
  return {
    'create-key': createKeyHandler(runtime),
    'list-keys': listKeysHandler(runtime),
    'rotate-key': rotateKeyHandler(runtime),
    'revoke-key': revokeKeyHandler(runtime),
    'list-events': listEventsHandler(runtime),
    'report-leaked-keys': reportLeakedKeysHandler(runtime),
    'github-secret-scanning': githubSecretScanningHandler(runtime, new GithubSignatureVerifier(githubKeys)),
    'mcp-authorizer': mcpAuthorizerHandler(runtime),
    'mcp-server': mcpServerHandler({ allowedOrigins: runtime.config.mcpAllowedOrigins }),
    'expiry-sweep': expirySweepHandler(runtime),
    // Workspace governance (contract §12).
    'list-workspace-keys': listWorkspaceKeysHandler(runtime),
    'cut-off-key': cutOffKeyHandler(runtime),
    'list-workspace-events': listWorkspaceEventsHandler(runtime),
    'get-workspace-policy': getWorkspacePolicyHandler(runtime),
    'put-workspace-policy': putWorkspacePolicyHandler(runtime),
    'apply-workspace-policy': applyWorkspacePolicyHandler(runtime),
  };
}

export type Handlers = ReturnType<typeof makeHandlers>;
export type HandlerName = keyof Handlers;
