import type { KeyEvent, KeyMetadata, queries, WorkspaceKey } from './schema.gen.ts';

// The API's schemas under the names the clients use, each declared (and documented) once in the
// types generated from the OpenAPI document (`npm run openapi`, web/client/generate.ts).
export type {
  ApproveOAuthRequest,
  CreateKeyRequest,
  CreateKeyResponse,
  CutOffKeyResponse,
  GrantClient,
  KeyEvent,
  KeyListItem,
  KeyMetadata,
  Limits,
  ListEventsResponse,
  ListKeysResponse,
  ListMcpToolsResponse,
  ListWorkspaceEventsResponse,
  ListWorkspaceKeysResponse,
  McpTool,
  OAuthDecision,
  OAuthRequest,
  PutWorkspacePolicyResponse,
  RevokeKeyResponse,
  RotateKeyResponse,
  Scope,
  UpdateKeyRequest,
  UpdateKeyResponse,
  WidenedGrant,
  WorkspaceEvent,
  WorkspaceKey,
  WorkspacePolicy,
  WorkspacePolicyRequest,
  WorkspacePolicyRules,
  WorkspaceRules,
} from './schema.gen.ts';

/**
 * `api_key`; `oauth_grant`, an app connected through OAuth (it has `client` and `redirect_host`);
 * or `enterprise_grant`, an app the person's identity provider let in (`client`, `identity_provider`).
 */
export type CredentialKind = KeyMetadata['kind'];
/** A key's status: `active`, `revoked` or `expired`. */
export type KeyStatus = KeyMetadata['status'];
/** An event's type; narrow a `KeyEvent` on it to read its `details`. */
export type KeyEventType = KeyEvent['type'];
/** A key's status as a workspace's administrators see it (`removed`: cut off from the workspace). */
export type WorkspaceKeyStatus = WorkspaceKey['status'];

/** The query of a listing operation, its page size as a number (the URL carries it as text). */
export type PageQuery<Op extends keyof queries> = Omit<queries[Op], 'limit'> & { limit?: number };
/** The query of `list`: `limit` (1–100), `cursor` (the previous page's `next_cursor`) and `status`. */
export type ListKeysQuery = PageQuery<'listKeys'>;
/** The query of a key's `events`: `limit` (1–100) and `cursor` (the previous page's `next_cursor`). */
export type ListEventsQuery = PageQuery<'listKeyEvents'>;
/** The query of a workspace's `listKeys`: `limit` (1–100), `cursor` and `status` (`removed` included). */
export type ListWorkspaceKeysQuery = PageQuery<'listWorkspaceKeys'>;
/** The query of a workspace's `events`: `limit` (1–100) and `cursor` (the previous page's `next_cursor`). */
export type ListWorkspaceEventsQuery = PageQuery<'listWorkspaceEvents'>;
