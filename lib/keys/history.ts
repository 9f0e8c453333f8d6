import type { KeyEvent } from '#lib/events/model';
import { type KeyServiceDeps, ownedKey } from './service.ts';

export interface ListEventsInput {
  userId: string;
  keyId: string;
  limit: number;
  cursor?: string | undefined;
}

/**
 * Contract §10: a key's history, the events of its whole lineage (the key and every key rotated
 * from or into it), newest first. Another user's key is not found, as everywhere; the cursor is
 * bound to the caller and the lineage.
 */
export async function listKeyEvents(
  deps: Pick<KeyServiceDeps, 'keys' | 'cursors'>,
  input: ListEventsInput,
): Promise<{ data: KeyEvent[]; next_cursor: string | null }> {
  const record = await ownedKey(deps, input.userId, input.keyId);
  const lineage = record.lineage_id;
  const after = input.cursor
    ? await deps.cursors.decodeEvents(input.userId, lineage, input.cursor)
    : undefined;
  const page = await deps.keys.listLineageEvents(lineage, { limit: input.limit, after });
  const last = page.items.at(-1);
  return {
    data: page.items,
    next_cursor: page.hasMore && last ? await deps.cursors.encodeEvents(input.userId, lineage, last) : null,
  };
}
