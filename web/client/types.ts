import type { components, KeyMetadata, operations } from './schema.gen.ts';

/** The API's schemas by the names the clients use, generated from the OpenAPI document (`npm run openapi`). */
export type {
  ApproveOAuthRequest,
  CreateKeyRequest,
  CreateKeyResponse,
  CutOffKeyResponse,
  KeyMetadata,
  ListEventsResponse,
  ListKeysResponse,
  ListWorkspaceEventsResponse,
  ListWorkspaceKeysResponse,
  OAuthDecision,
  OAuthRequest,
  PutWorkspacePolicyResponse,
  RevokeKeyResponse,
  RotateKeyResponse,
  WorkspacePolicyRequest,
} from './schema.gen.ts';

/** One event of a key's history (contract §10); narrow on `type` to read its `details`. */
export type KeyEvent = components['schemas']['KeyEvent'];
/** A key as a workspace's administrators see it: never its other workspaces. */
export type WorkspaceKey = components['schemas']['WorkspaceKey'];
/** A governance event: a cut-off or a policy change; narrow on `type` to read its `details`. */
export type WorkspaceEvent = components['schemas']['WorkspaceEvent'];

export type Scope = KeyMetadata['scopes'][number];
/** `api_key`, or `oauth_grant` for an app connected through OAuth (it has `client` and `redirect_host`). */
export type CredentialKind = KeyMetadata['kind'];
/** The app an OAuth grant or sign-in request is for; `verified_domain` null: unverified (registered dynamically). */
export type GrantClient = components['schemas']['GrantClient'];
export type KeyStatus = KeyMetadata['status'];
/** An event's type; narrow a `KeyEvent` on it to read its `details`. */
export type KeyEventType = KeyEvent['type'];
/** A key's status as a workspace's administrators see it (`removed`: cut off from the workspace). */
export type WorkspaceKeyStatus = WorkspaceKey['status'];
/** The workspace's policy, as the API answers it. */
export type WorkspacePolicy = components['schemas']['WorkspacePolicyResponse'];

/** The query of a listing operation, its page size as a number (the URL carries it as text). */
export type PageQuery<Op extends keyof operations> = Omit<
  NonNullable<operations[Op]['parameters']['query']>,
  'limit'
> & { limit?: number };
export type ListKeysQuery = PageQuery<'listKeys'>;
export type ListEventsQuery = PageQuery<'listKeyEvents'>;
export type ListWorkspaceKeysQuery = PageQuery<'listWorkspaceKeys'>;
export type ListWorkspaceEventsQuery = PageQuery<'listWorkspaceEvents'>;
