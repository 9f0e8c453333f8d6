// Through the path the elements' build maps to the client package (`/client/index.ts`): the
// `ProblemError` thrown here is then the package's own, the one the elements test for.
import { type KeysClientOptions, ProblemError } from '../client/index.ts';
import type { CredentialUsage, operations, WorkspaceUsage } from './schema.gen.ts';
import { createSender, search } from './send.ts';

/**
 * Usage (contract §18), as the elements read it: what a credential did, and what the credentials
 * reaching a workspace did. Not in the client package, which stays within its 50 kB: its types
 * are the generated ones (web/client/client-document.ts, `ELEMENTS_ONLY`), and the elements bundle
 * this module, throwing the client package's `ProblemError`.
 */
export interface UsageClient {
  /** What one of the caller's keys (or connected apps) did; by day over the last 30 days unless asked. */
  keyUsage(keyId: string, query?: KeyUsageQuery): Promise<CredentialUsage>;
  /** What the credentials reaching the workspace did, grouped (its administrators only). */
  workspaceUsage(workspaceId: string, query?: WorkspaceUsageQuery): Promise<WorkspaceUsage>;
}

export type { CredentialUsage, WorkspaceUsage };
/** `from`, `to` (ISO 8601) and `granularity` (`hour` or `day`). */
export type KeyUsageQuery = NonNullable<operations['getKeyUsage']['parameters']['query']>;
/** `from`, `to` (ISO 8601) and `group_by` (`credential`, `client` or `tool`). */
export type WorkspaceUsageQuery = NonNullable<operations['getWorkspaceUsage']['parameters']['query']>;
/** One group of a workspace's usage: a credential, a client or a tool, and its totals. */
export type UsageGroup = WorkspaceUsage['groups'][number];
/** A credential refused as revoked in the range, and how many times it was presented. */
export type RevokedStillPresented = WorkspaceUsage['revoked_still_presented'][number];

/** The usage client, with the options of `createKeysClient`. */
export function createUsageClient(options: KeysClientOptions): UsageClient {
  const send = createSender(options, ProblemError.from);
  return {
    keyUsage: (keyId, query = {}) =>
      send('GET', `/v1/mcp/api-keys/${encodeURIComponent(keyId)}/usage${search(query)}`),
    workspaceUsage: (workspaceId, query = {}) =>
      send('GET', `/v1/mcp/workspaces/${encodeURIComponent(workspaceId)}/usage${search(query)}`),
  };
}
