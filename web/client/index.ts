/** The typed client of the MCP API key management API, for dashboards. No runtime dependency. */
export {
  type CreateKeyRequest,
  type CreateKeyResponse,
  createKeysClient,
  type KeyEvent,
  type KeyEventType,
  type KeyMetadata,
  type KeyStatus,
  type KeysClient,
  type KeysClientOptions,
  type ListEventsQuery,
  type ListEventsResponse,
  type ListKeysQuery,
  type ListKeysResponse,
  type RevokeKeyResponse,
  type RotateKeyResponse,
  type Scope,
} from './client.ts';
export {
  type AuthChallenge,
  type ErrorCode,
  type FieldProblem,
  type Problem,
  ProblemError,
  parseChallenge,
} from './problem.ts';
export type { components, operations, paths } from './schema.gen.ts';
export {
  type CutOffKeyResponse,
  createWorkspaceClient,
  type ListWorkspaceEventsQuery,
  type ListWorkspaceEventsResponse,
  type ListWorkspaceKeysQuery,
  type ListWorkspaceKeysResponse,
  type PutWorkspacePolicyResponse,
  type WorkspaceClient,
  type WorkspaceEvent,
  type WorkspaceKey,
  type WorkspaceKeyStatus,
  type WorkspacePolicy,
  type WorkspacePolicyRequest,
} from './workspaces.ts';
