import { toolsOfScopes } from '#lib/access/tools';
import { AppError } from '#lib/errors';
import { keyUpdated, userActor } from '#lib/events/model';
import { admittedTools } from './admission.ts';
import { type KeyMetadata, type KeyRecord, keyStatus, toMetadata } from './model.ts';
import type { Narrowed } from './port.ts';
import { catalogueOf, type KeyServiceDeps, notFound, ownedKey } from './service.ts';

/**
 * PATCH of a key or grant (contract §19): its owner narrows what it may do, never widens it, and
 * needs no step-up (reducing access is never blocked). The next call obeys it.
 */

export interface UpdateKeyInput {
  /** The tools it may call from now on: a subset of its own, or of every tool its scopes allow. */
  tools?: string[] | undefined;
}

const ATTEMPTS = 3;

const notNarrower = (message: string, index?: number) =>
  new AppError('validation_failed', 'The request failed validation.', {
    errors: [{ input: 'tools', ...(index !== undefined && { index }), message }],
  });

/** The narrowed tools: each in the catalogue, its scopes' and within its own list; 400 naming each that is not. */
function narrowedTools(deps: KeyServiceDeps, record: KeyRecord, tools: readonly string[]): string[] {
  const next = admittedTools(deps, tools, record.scopes) ?? [];
  const own = record.tools ?? toolsOfScopes(catalogueOf(deps), record.scopes);
  const wider = tools.findIndex((name) => !own.includes(name));
  if (wider >= 0)
    throw notNarrower(
      `${tools[wider]} is not among its tools (${own.join(', ')}): a PATCH only narrows`,
      wider,
    );
  return next;
}

const sameTools = (a: readonly string[] | undefined, b: readonly string[]) =>
  a !== undefined && a.length === b.length && a.every((t, i) => t === b[i]);

/** Narrows a key or grant of `userId`'s; answers its metadata, unchanged when nothing narrows. */
export async function updateKey(
  deps: KeyServiceDeps,
  userId: string,
  keyId: string,
  input: UpdateKeyInput,
): Promise<KeyMetadata> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const record = await ownedKey(deps, userId, keyId);
    const now = deps.now();
    const status = keyStatus(record, now);
    if (status === 'revoked')
      throw new AppError('key_revoked', 'The key is revoked: there is nothing to narrow.');
    if (status === 'expired')
      throw new AppError('key_expired', 'The key has expired: there is nothing to narrow.');
    const changes: Narrowed = {};
    if (input.tools !== undefined) {
      const tools = narrowedTools(deps, record, input.tools);
      if (!sameTools(record.tools, tools)) changes.tools = tools;
    }
    if (Object.keys(changes).length === 0) return toMetadata(record, now);
    const event = keyUpdated(
      record,
      { tools_before: record.tools ?? null, tools_after: changes.tools ?? null },
      userActor(userId),
      now,
    );
    const outcome = await deps.keys.narrow(record, changes, now, [event]);
    if (outcome.kind === 'narrowed') return toMetadata(outcome.record, now);
    if (outcome.kind === 'not_found') throw notFound();
  }
  throw new AppError('conflict', 'The key was changed by concurrent requests; retry.');
}
