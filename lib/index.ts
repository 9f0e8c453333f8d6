/**
 * The library's public face for MCP servers that verify keys in-process rather than behind
 * the Lambda authorizer (`@svc/mcp-api-keys/verifier`). Its import graph holds the verification,
 * its DynamoDB reads, the denial table and the framework integrations (which import no framework
 * and no SDK), and nothing of key management (test/package/verifier-imports.test.ts).
 */

import type { VerifyResult } from './keys/verify.ts';
import {
  createMcpKeyVerifier,
  type McpKeyVerifier,
  type McpKeyVerifierLogger,
  verifierOptionsFromEnv,
} from './verifier.ts';

export { ROLES, type Role, SCOPES, type Scope, type WorkspaceAccess } from './access/scopes.ts';
export { type AuthInfo, type AuthInfoExtra, toAuthInfo } from './integrations/auth-info.ts';
export {
  createMcpKeyGuard,
  type McpKeyGuard,
  type McpKeyGuardOptions,
  type McpKeyGuardResult,
} from './integrations/guard.ts';
export {
  answerMissingScopes,
  type McpAuthenticatedRequest,
  type McpKeyAuthMiddleware,
  mcpKeyAuth,
} from './integrations/node.ts';
export {
  type ProtectedResourceMetadata,
  type ProtectedResourceMetadataOptions,
  protectedResourceMetadata,
  protectedResourceMetadataDocument,
  protectedResourceMetadataUrl,
} from './integrations/resource-metadata.ts';
export {
  missingScopes,
  requireScopes,
  type ScopedCaller,
  scopeRefusal,
} from './integrations/scopes.ts';
export { KEY_PATTERN, KEY_SCANNER_PATTERN, type ParsedKey, parseKey } from './keys/format.ts';
export type { RateWriter } from './keys/limiter.ts';
export {
  type EffectiveLimit,
  LIMIT_WINDOWS,
  type Limits,
  type LimitWindow,
  type RateDenial,
} from './keys/limits.ts';
export type { GrantClient, GrantDetails, KeyRecord, TokenDigest } from './keys/model.ts';
export type { PepperSource } from './keys/pepper.ts';
export type {
  KeyReader,
  KeyState,
  MembershipReader,
  MembershipReadHint,
  MembershipRoles,
  VerificationReads,
} from './keys/port.ts';
export {
  createKeyVerifier,
  type KeyUse,
  type RateRefusal,
  type ToolRefusal,
  type ValidResult,
  type VerifierDeps,
  type VerifyResult,
} from './keys/verify.ts';
export type { McpAnswer } from './mcp/answer.ts';

import type { McpCall } from './usage/model.ts';

export type { GrantKind } from './access/credential-kinds.ts';
export {
  type McpTool,
  REFERENCE_TOOLS,
  type RulesByWorkspace,
  type ToolCatalogue,
  type ToolDenial,
  toolSentence,
  type WorkspaceRules,
} from './access/tools.ts';
export { bearerToken } from './mcp/authorizer.ts';
export { type DenialCase, type DenialOptions, denialResponse, MISSING_KEY, mcpDenial } from './mcp/denial.ts';
export type {
  CountedUse,
  CredentialKind,
  McpCall,
  RefusalReason,
  Tally,
  UsageDay,
  UsageOutcome,
} from './usage/model.ts';
export { REFUSAL_REASONS } from './usage/model.ts';
export { UsageRecorder, type UsageRecorderOptions, type UsageWriter } from './usage/recorder.ts';
export {
  createMcpKeyVerifier,
  type FixedPepperOption,
  type KmsPepperOption,
  type McpKeyVerifier,
  type McpKeyVerifierLogger,
  type McpKeyVerifierOptions,
  type McpKeyVerifierSettings,
} from './verifier.ts';

/** `verifyMcpKey`'s options. */
export interface VerifyMcpKeyOptions {
  /**
   * Where its lines go: a verification that failed (DynamoDB or KMS) and a failed `last_used_at`
   * write. Pass the same logger on every call: each logger has its verifier (its own clients and
   * cache of verified keys). @default the service's structured logs (JSON lines on stdout)
   */
  logger?: McpKeyVerifierLogger;
  /** The MCP request the key is presented for (`Mcp-Method` / `Mcp-Name`), counted in its usage. @default none */
  call?: McpCall;
}

/** The environment-configured verifiers, one per logger (`undefined`: the default logs). */
const fromEnvironment = new Map<McpKeyVerifierLogger | undefined, McpKeyVerifier>();

/**
 * Verifies a raw MCP key with a verifier configured from the environment (`KEYS_TABLE_NAME`,
 * `MEMBERSHIPS_TABLE_NAME`, `PEPPER_KMS_KEY_ID`, `AWS_REGION`, ...), built on the first call:
 * `createMcpKeyVerifier` with those options and `options.logger`. Denials, and a failing DynamoDB
 * or KMS (`unavailable`), are data; only a missing or invalid setting rejects.
 */
export async function verifyMcpKey(
  rawKey: unknown,
  options: VerifyMcpKeyOptions = {},
): Promise<VerifyResult> {
  let verifier = fromEnvironment.get(options.logger);
  if (!verifier) {
    verifier = createMcpKeyVerifier({
      ...verifierOptionsFromEnv(),
      ...(options.logger && { logger: options.logger }),
    });
    fromEnvironment.set(options.logger, verifier);
  }
  return verifier.verify(rawKey, options.call);
}
