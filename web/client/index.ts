/** The typed client of the MCP API key management API, for dashboards. No runtime dependency. */
export { createKeysClient, type KeysClient, type KeysClientOptions } from './client.ts';
export {
  type AuthChallenge,
  type ErrorCode,
  type FieldProblem,
  type Problem,
  ProblemError,
  parseChallenge,
} from './problem.ts';
export type { components, operations, paths } from './schema.gen.ts';
export type {
  CreateKeyRequest,
  CreateKeyResponse,
  CutOffKeyResponse,
  KeyEvent,
  KeyEventType,
  KeyMetadata,
  KeyStatus,
  ListEventsQuery,
  ListEventsResponse,
  ListKeysQuery,
  ListKeysResponse,
  ListWorkspaceEventsQuery,
  ListWorkspaceEventsResponse,
  ListWorkspaceKeysQuery,
  ListWorkspaceKeysResponse,
  PutWorkspacePolicyResponse,
  RevokeKeyResponse,
  RotateKeyResponse,
  Scope,
  WorkspaceEvent,
  WorkspaceKey,
  WorkspaceKeyStatus,
  WorkspacePolicy,
  WorkspacePolicyRequest,
} from './types.ts';
export { createWorkspaceClient, type WorkspaceClient } from './workspaces.ts';
