import type { components, queries } from './schema.gen.ts';

// The API's schemas by the names the clients use, generated from the OpenAPI document (`npm run openapi`).

/** A key's metadata as the API answers it: never its secret or digest. `kind` tells a key from an app's grant. */
export type KeyMetadata = components['schemas']['KeyMetadata'];
/** The body of `create`: a name, the workspaces and scopes the key reaches, and its lifetime in days. */
export type CreateKeyRequest = components['schemas']['CreateKeyRequest'];
/** What `create` answers: the full key (`api_key`, shown once: never store it) and its metadata. */
export type CreateKeyResponse = components['schemas']['CreateKeyResponse'];
/** What `rotate` answers: the new key (shown once), its metadata, and the revoked key's (`revoked_key`). */
export type RotateKeyResponse = components['schemas']['RotateKeyResponse'];
/** What `revoke` answers: the revoked key's metadata. */
export type RevokeKeyResponse = components['schemas']['RevokeKeyResponse'];
/** A page of the caller's keys (`data`) and the cursor of the next page (`next_cursor`, null on the last). */
export type ListKeysResponse = components['schemas']['ListKeysResponse'];
/** A page of a key's events (`data`), newest first, and the cursor of the next page. */
export type ListEventsResponse = components['schemas']['ListEventsResponse'];
/** A page of the keys that reach a workspace (`data`) and the cursor of the next page. */
export type ListWorkspaceKeysResponse = components['schemas']['ListWorkspaceKeysResponse'];
/** A page of a workspace's governance events (`data`), newest first, and the cursor of the next page. */
export type ListWorkspaceEventsResponse = components['schemas']['ListWorkspaceEventsResponse'];
/** What `cutOff` answers: the key as the workspace's administrators now see it. */
export type CutOffKeyResponse = components['schemas']['CutOffKeyResponse'];
/** The body of `putPolicy`: MCP access, the scopes keys may hold, the longest lifetime, and which apps may connect. */
export type WorkspacePolicyRequest = components['schemas']['WorkspacePolicyRequest'];
/** What `putPolicy` answers: the saved policy and how many keys it cut off from the workspace (`affected_keys`). */
export type PutWorkspacePolicyResponse = components['schemas']['PutWorkspacePolicyResponse'];
/** An app's sign-in request as the consent page shows it: the app, where it returns to, the scopes it asks for. */
export type OAuthRequest = components['schemas']['OAuthRequest'];
/** The body of the consent client's `approve`: the workspaces, scopes and lifetime the person grants the app. */
export type ApproveOAuthRequest = components['schemas']['ApproveOAuthRequest'];
/** Where the consent page sends the browser after a decision (`redirect_to`). */
export type OAuthDecision = components['schemas']['OAuthDecision'];

/** One event of a key's history (contract §10); narrow on `type` to read its `details`. */
export type KeyEvent = components['schemas']['KeyEvent'];
/** A key as a workspace's administrators see it: never its other workspaces. */
export type WorkspaceKey = components['schemas']['WorkspaceKey'];
/** A governance event: a cut-off or a policy change; narrow on `type` to read its `details`. */
export type WorkspaceEvent = components['schemas']['WorkspaceEvent'];

/** A scope a key or grant can hold, e.g. `svc.forms.read`. */
export type Scope = KeyMetadata['scopes'][number];
/** `api_key`, or `oauth_grant` for an app connected through OAuth (it has `client` and `redirect_host`). */
export type CredentialKind = KeyMetadata['kind'];
/** The app an OAuth grant or sign-in request is for; `verified_domain` null: unverified (registered dynamically). */
export type GrantClient = components['schemas']['GrantClient'];
/** A key's status: `active`, `revoked` or `expired`. */
export type KeyStatus = KeyMetadata['status'];
/** An event's type; narrow a `KeyEvent` on it to read its `details`. */
export type KeyEventType = KeyEvent['type'];
/** A key's status as a workspace's administrators see it (`removed`: cut off from the workspace). */
export type WorkspaceKeyStatus = WorkspaceKey['status'];
/** The workspace's policy, as the API answers it. */
export type WorkspacePolicy = components['schemas']['WorkspacePolicyResponse'];

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
