import { REFERENCE_TOOLS, type ToolCatalogue } from '#lib/access/tools';
import { AppError } from '#lib/errors';
import type { Settings } from '#lib/limits';
import type { UsageReader } from '#lib/usage/report';
import type { PolicyReader } from '#lib/workspace-policy/rules';
import type { CursorCodec } from './cursor.ts';
import { generateKey, keyHint } from './format.ts';
import type { KeyMetadata, KeyRecord } from './model.ts';
import { digestKey, type PepperSource } from './pepper.ts';
import type { KeyStore, MembershipReader } from './port.ts';

/**
 * What the key use cases share (lib/keys/lifecycle.ts, admission.ts, rotation.ts, history.ts):
 * their dependencies, minting a key, the ownership rule and the errors they answer alike.
 */

/** Everything the use cases need; tests pass their own clock and an in-memory store. */
export interface KeyServiceDeps {
  keys: KeyStore;
  memberships: MembershipReader;
  peppers: PepperSource;
  cursors: CursorCodec;
  settings: Settings;
  now: () => Date;
  /** Workspace policies (contract §12). @default none: every workspace has the default policy */
  policies?: PolicyReader;
  /** What credentials did (contract §18). @default none: every credential's usage is empty */
  usage?: UsageReader | undefined;
  /** The MCP server's tools (contract §19): what a credential's list may name. @default the reference server's */
  tools?: ToolCatalogue | undefined;
}

/** The catalogue a credential's tools are checked against. */
export const catalogueOf = (deps: Pick<KeyServiceDeps, 'tools'>): ToolCatalogue =>
  deps.tools ?? REFERENCE_TOOLS;

/** The policies of `workspaceIds`; none without a policy reader. */
export const policiesOf = (deps: KeyServiceDeps, workspaceIds: readonly string[]) =>
  deps.policies ? deps.policies.policiesFor(workspaceIds) : Promise.resolve(new Map());

/** A key as it is issued: its value, shown once, and its metadata. */
export interface IssuedKey {
  apiKey: string;
  metadata: KeyMetadata;
}

/** A new key record with a fresh id, value and digest; a new lineage unless `lineage_id` is given. */
export async function mint(
  deps: KeyServiceDeps,
  fields: Omit<KeyRecord, 'id' | 'digest' | 'pepper_version' | 'key_hint' | 'lineage_id'> & {
    lineage_id?: string;
  },
): Promise<{ apiKey: string; record: KeyRecord }> {
  const { id, apiKey } = generateKey();
  const { digest, pepperVersion } = await digestKey(deps.peppers, apiKey);
  const record: KeyRecord = {
    ...fields,
    id,
    lineage_id: fields.lineage_id ?? id,
    digest,
    pepper_version: pepperVersion,
    key_hint: keyHint(apiKey),
  };
  return { apiKey, record };
}

export const notFound = () => new AppError('not_found', 'API key not found.');
export const keyExpired = () =>
  new AppError('key_expired', 'The key has expired and cannot be rotated; create a new key.');

/** The ownership rule, written once: another user's key, like a missing one, is not found. */
export async function ownedKey(
  deps: Pick<KeyServiceDeps, 'keys'>,
  userId: string,
  keyId: string,
): Promise<KeyRecord> {
  const record = await deps.keys.get(keyId);
  if (!record || record.user_id !== userId) throw notFound();
  return record;
}

/** A person's active credentials (keys and grants), a page of at most 100 at a time. */
export async function* activeCredentialsOf(
  deps: Pick<KeyServiceDeps, 'keys' | 'now'>,
  userId: string,
): AsyncGenerator<KeyRecord[]> {
  let after: { created_at: string; id: string } | undefined;
  for (;;) {
    const page = await deps.keys.listByUser(userId, { limit: 100, after, status: 'active', now: deps.now() });
    if (page.items.length > 0) yield page.items;
    const last = page.items.at(-1);
    if (!page.hasMore || !last) return;
    after = { created_at: last.created_at, id: last.id };
  }
}
