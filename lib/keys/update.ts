import { toolsOfScopes } from '#lib/access/tools';
import { AppError, type InputProblem } from '#lib/errors';
import { type EventDetails, keyUpdated, userActor } from '#lib/events/model';
import { admittedTools } from './admission.ts';
import { LIMIT_WINDOWS, type Limits } from './limits.ts';
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
  /** Limits added or lowered; one left out stays as it is (none is ever raised or removed). */
  limits?: Limits | undefined;
}

const ATTEMPTS = 3;

const refused = (errors: InputProblem[]) =>
  new AppError('validation_failed', 'The request failed validation.', { errors });

/** The narrowed tools: each in the catalogue, its scopes' and within its own list; 400 naming each that is not. */
function narrowedTools(deps: KeyServiceDeps, record: KeyRecord, tools: readonly string[]): string[] {
  // Stryker disable next-line ArrayDeclaration: equivalent, a PATCH's tools are a list, never null, so admittedTools answers one
  const next = admittedTools(deps, tools, record.scopes) ?? [];
  const own = record.tools ?? toolsOfScopes(catalogueOf(deps), record.scopes);
  const wider = tools.findIndex((name) => !own.includes(name));
  if (wider >= 0)
    throw refused([
      {
        input: 'tools',
        index: wider,
        message: `${tools[wider]} is not among its tools (${own.join(', ')}): a PATCH only narrows`,
      },
    ]);
  return next;
}

/** The limits after the PATCH: each given one at most the one it has; 400 naming each raised. */
function narrowedLimits(record: KeyRecord, limits: Limits): Limits {
  const next: Limits = { ...record.limits };
  const problems: InputProblem[] = [];
  for (const window of LIMIT_WINDOWS) {
    const field = window === 'minute' ? 'per_minute' : 'per_day';
    const asked = limits[field];
    if (asked === undefined) continue;
    const held = record.limits?.[field];
    // Stryker disable next-line ConditionalExpression: equivalent for `held !== undefined`, no number is above undefined (the comparison is killed by test/unit/key-update.test.ts)
    if (held !== undefined && asked > held)
      problems.push({
        input: `limits.${field}`,
        message: `must be at most ${held}, its limit now: a PATCH only lowers one`,
      });
    else next[field] = asked;
  }
  if (problems.length > 0) throw refused(problems);
  return next;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** What the PATCH changes, and its event's details; nothing when it changes nothing. */
function changesOf(deps: KeyServiceDeps, record: KeyRecord, input: UpdateKeyInput) {
  const changes: Narrowed = {};
  const details: EventDetails['key.updated'] = {};
  if (input.tools !== undefined) {
    const tools = narrowedTools(deps, record, input.tools);
    if (!same(record.tools, tools)) {
      changes.tools = tools;
      Object.assign(details, { tools_before: record.tools ?? null, tools_after: tools });
    }
  }
  if (input.limits !== undefined) {
    const limits = narrowedLimits(record, input.limits);
    if (!same(record.limits ?? {}, limits)) {
      changes.limits = limits;
      Object.assign(details, { limits_before: record.limits ?? null, limits_after: limits });
    }
  }
  return { changes, details };
}

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
    const { changes, details } = changesOf(deps, record, input);
    if (Object.keys(changes).length === 0) return toMetadata(record, now);
    const event = keyUpdated(record, details, userActor(userId), now);
    const outcome = await deps.keys.narrow(record, changes, now, [event]);
    if (outcome.kind === 'narrowed') return toMetadata(outcome.record, now);
    if (outcome.kind === 'not_found') throw notFound();
  }
  throw new AppError('conflict', 'The key was changed by concurrent requests; retry.');
}
