import { DAY_MS } from '#lib/limits';
import type { Tally } from '#lib/usage/model';
import {
  bucketsOf,
  daysIn,
  type Granularity,
  inTurn,
  totalOf,
  type UsageDeps,
  type UsageRange,
  usageRange,
} from '#lib/usage/report';
import { credentialKind, type KeyMetadata } from './model.ts';
import { type KeyServiceDeps, ownedKey } from './service.ts';

/** A person's view of their credentials' usage (contract §18). */

export interface CredentialUsageInput {
  userId: string;
  keyId: string;
  from?: string | undefined;
  to?: string | undefined;
  granularity?: Granularity | undefined;
}

/** Contract §18: one credential's usage, for its creator only (anyone else's is not found). */
export async function credentialUsage(deps: KeyServiceDeps & UsageDeps, input: CredentialUsageInput) {
  const range = usageRange(input, deps.now());
  const record = await ownedKey(deps, input.userId, input.keyId);
  const buckets = bucketsOf(await daysIn(deps, record.id, range), range);
  return {
    credential_id: record.id,
    kind: credentialKind(record),
    granularity: range.granularity,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    total: withoutStart(totalOf(buckets)),
    buckets,
  };
}

const withoutStart = (tally: Tally): Tally => ({
  calls: tally.calls,
  refused: tally.refused,
  tools: tally.tools,
});

/** The last seven days' calls of each credential of a page (`calls_7d` of the list). */
export async function withCalls7d<T extends Pick<KeyMetadata, 'id'>>(
  deps: UsageDeps,
  items: readonly T[],
): Promise<(T & { calls_7d: number })[]> {
  const now = deps.now().getTime();
  const range: UsageRange = { from: new Date(now - 7 * DAY_MS), to: new Date(now), granularity: 'day' };
  const calls = await inTurn(items, async (item) =>
    (await daysIn(deps, item.id, range)).reduce((sum, day) => sum + day.calls, 0),
  );
  return items.map((item, i) => ({ ...item, calls_7d: calls[i] ?? 0 }));
}
