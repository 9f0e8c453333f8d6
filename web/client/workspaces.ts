import type { KeysClientOptions } from './client.ts';
import { ProblemError } from './problem.ts';
import { createSender, search } from './send.ts';
import type {
  CutOffKeyResponse,
  ListWorkspaceEventsQuery,
  ListWorkspaceEventsResponse,
  ListWorkspaceKeysQuery,
  ListWorkspaceKeysResponse,
  PutWorkspacePolicyResponse,
  WorkspacePolicy,
  WorkspacePolicyRequest,
} from './types.ts';

/** Workspace governance (contract §12): for the workspace's administrators (reading the policy: any member). */
export interface WorkspaceClient {
  /** One page of the keys that reach (or reached) the workspace, of every creator, newest first. */
  listKeys(workspaceId: string, query?: ListWorkspaceKeysQuery): Promise<ListWorkspaceKeysResponse>;
  /** Cuts the key off from the workspace, at once and idempotently (revoked when none is left). */
  cutOff(workspaceId: string, keyId: string): Promise<CutOffKeyResponse>;
  /** The workspace's policy. */
  getPolicy(workspaceId: string): Promise<WorkspacePolicy>;
  /** Sets the policy (needs a recent login); `affected_keys` lose the workspace within 60 s. */
  putPolicy(workspaceId: string, policy: WorkspacePolicyRequest): Promise<PutWorkspacePolicyResponse>;
  /** One page of the workspace's governance events, newest first. */
  events(workspaceId: string, query?: ListWorkspaceEventsQuery): Promise<ListWorkspaceEventsResponse>;
}

const workspacePath = (id: string) => `/v1/mcp/workspaces/${encodeURIComponent(id)}`;

/** A typed client of the workspace governance endpoints, with the same options as `createKeysClient`. */
export function createWorkspaceClient(options: KeysClientOptions): WorkspaceClient {
  const send = createSender(options, ProblemError.from);
  return {
    listKeys: (id, query = {}) =>
      send(
        'GET',
        `${workspacePath(id)}/api-keys${search({ limit: query.limit, cursor: query.cursor, status: query.status })}`,
      ),
    cutOff: (id, keyId) => send('DELETE', `${workspacePath(id)}/api-keys/${encodeURIComponent(keyId)}`),
    getPolicy: (id) => send('GET', `${workspacePath(id)}/policy`),
    putPolicy: (id, policy) => send('PUT', `${workspacePath(id)}/policy`, policy),
    events: (id, query = {}) =>
      send('GET', `${workspacePath(id)}/events${search({ limit: query.limit, cursor: query.cursor })}`),
  };
}
