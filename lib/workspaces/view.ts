import type { Scope } from '#lib/access/scopes';
import {
  type CredentialKind,
  credentialKind,
  type GrantClient,
  idpHost,
  type KeyTimeline,
  keyStatus,
  timelineOf,
} from '#lib/keys/model';
import type { WorkspaceAccessState, WorkspaceKey, WorkspaceKeyStatus } from './port.ts';

/**
 * A key as a workspace's administrators see it (contract §12): the metadata object with the
 * creator and this workspace's access, and never the key's other workspaces (they may belong to
 * other organisations). Built field by field, so nothing else can slip in.
 */
export interface WorkspaceKeyView extends KeyTimeline {
  id: string;
  name: string;
  key_hint: string;
  scopes: Scope[];
  user_id: string;
  /** `removed` once cut off from this workspace, whatever its state elsewhere; else its own status. */
  status: WorkspaceKeyStatus;
  workspace_access: WorkspaceAccessState;
  kind: CredentialKind;
  /** For a grant: the app it was given to. */
  client?: GrantClient;
  /** For an enterprise grant: the host of the identity provider that let it in. */
  identity_provider?: string;
}

export function toWorkspaceView({ entry, record }: WorkspaceKey, now: Date): WorkspaceKeyView {
  const access = entry.workspace_access;
  return {
    id: record.id,
    name: record.name,
    key_hint: record.key_hint,
    scopes: record.scopes,
    user_id: record.user_id,
    status: access === 'removed' ? 'removed' : keyStatus(record, now),
    workspace_access: access,
    ...timelineOf(record),
    kind: credentialKind(record),
    ...(record.grant && { client: record.grant.client }),
    ...(record.grant?.idp && { identity_provider: idpHost(record.grant.idp) }),
  };
}
