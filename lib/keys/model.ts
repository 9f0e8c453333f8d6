import type { Scope } from '#lib/access/scopes';

/** A key as stored: everything but the secret. `lineage_id` is the id of the first key of a rotation chain. */
export interface KeyRecord {
  id: string;
  user_id: string;
  lineage_id: string;
  name: string;
  workspace_ids: string[];
  scopes: Scope[];
  digest: string;
  pepper_version: number;
  key_hint: string;
  created_at: string;
  expires_at: string;
  last_used_at?: string;
  revoked_at?: string;
  rotated_from?: string;
  replaced_by?: string;
}

export const KEY_STATUSES = ['active', 'revoked', 'expired'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** The non-secret view returned by every endpoint (contract §5 "Metadata object"). */
export interface KeyMetadata {
  id: string;
  name: string;
  key_hint: string;
  scopes: Scope[];
  workspace_ids: string[];
  status: KeyStatus;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  rotated_from: string | null;
  replaced_by: string | null;
}

export function keyStatus(record: Pick<KeyRecord, 'revoked_at' | 'expires_at'>, now: Date): KeyStatus {
  if (record.revoked_at) return 'revoked';
  return now.getTime() >= Date.parse(record.expires_at) ? 'expired' : 'active';
}

export function toMetadata(record: KeyRecord, now: Date): KeyMetadata {
  return {
    id: record.id,
    name: record.name,
    key_hint: record.key_hint,
    scopes: record.scopes,
    workspace_ids: record.workspace_ids,
    status: keyStatus(record, now),
    created_at: record.created_at,
    expires_at: record.expires_at,
    last_used_at: record.last_used_at ?? null,
    revoked_at: record.revoked_at ?? null,
    rotated_from: record.rotated_from ?? null,
    replaced_by: record.replaced_by ?? null,
  };
}
