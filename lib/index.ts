/**
 * The library's public face for MCP servers that verify keys in-process rather than behind
 * the Lambda authorizer.
 */
import { getRuntime } from './runtime.ts';

export type { Role, Scope, WorkspaceAccess } from './access/scopes.ts';
export { KEY_PATTERN, KEY_SCANNER_PATTERN, parseKey } from './keys/format.ts';
export { createKeyVerifier, type VerifierDeps, type VerifyResult } from './keys/verify.ts';
export { bearerToken } from './mcp/authorizer.ts';
export { type DenialCase, denialResponse, MISSING_KEY, mcpDenial } from './mcp/denial.ts';

/**
 * Verifies a raw MCP key with the process-wide configuration (KEYS_TABLE_NAME,
 * MEMBERSHIPS_TABLE_NAME, PEPPER_KMS_KEY_ID, ...). Denials are data, never exceptions; only a
 * failing dependency throws, and the caller should then deny.
 */
export const verifyMcpKey = (rawKey: unknown) => getRuntime().verify(rawKey);
