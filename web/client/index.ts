/** The typed client of the MCP API key management API, for dashboards. No runtime dependency. */
// The key grammar from its Node-free module (never lib/keys/format.ts, which mints keys with node:crypto).
export { KEY_LENGTH, KEY_PATTERN, KEY_PREFIX, KEY_SCANNER_PATTERN } from '#lib/keys/grammar';
export { createKeysClient, type KeysClient, type KeysClientOptions } from './client.ts';
export { type ConsentClient, createConsentClient } from './consent.ts';
export {
  type AuthChallenge,
  type ErrorCode,
  type FieldProblem,
  type Problem,
  ProblemError,
  parseChallenge,
} from './problem.ts';
export type { queries } from './schema.gen.ts';
export type {
  ApproveOAuthRequest,
  CreateKeyRequest,
  CreateKeyResponse,
  CredentialKind,
  CutOffKeyResponse,
  GrantClient,
  KeyEvent,
  KeyEventType,
  KeyListItem,
  KeyMetadata,
  KeyStatus,
  Limits,
  ListEventsQuery,
  ListEventsResponse,
  ListKeysQuery,
  ListKeysResponse,
  ListMcpToolsResponse,
  ListWorkspaceEventsQuery,
  ListWorkspaceEventsResponse,
  ListWorkspaceKeysQuery,
  ListWorkspaceKeysResponse,
  McpTool,
  OAuthDecision,
  OAuthRequest,
  PageQuery,
  PutWorkspacePolicyResponse,
  RevokeKeyResponse,
  RotateKeyResponse,
  Scope,
  UpdateKeyRequest,
  UpdateKeyResponse,
  WidenedGrant,
  WorkspaceEvent,
  WorkspaceKey,
  WorkspaceKeyStatus,
  WorkspacePolicy,
  WorkspacePolicyRequest,
  WorkspacePolicyRules,
  WorkspaceRules,
} from './types.ts';
export { createWorkspaceClient, type WorkspaceClient } from './workspaces.ts';
