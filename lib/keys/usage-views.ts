import type { Tally } from '#lib/usage/model';
import { bucketsOf, daysIn, type Granularity, totalOf, type UsageDeps, usageRange } from '#lib/usage/report';
import { leastPrivilege } from './least-privilege.ts';
import { credentialKind } from './model.ts';
import { catalogueOf, type KeyServiceDeps, ownedKey } from './service.ts';

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
  const now = deps.now();
  const range = usageRange(input, now);
  const month = usageRange({ granularity: 'day' }, now);
  const record = await ownedKey(deps, input.userId, input.keyId);
  const [days, monthDays] = await Promise.all([
    daysIn(deps, record.id, range),
    daysIn(deps, record.id, month),
  ]);
  const buckets = bucketsOf(days, range);
  return {
    credential_id: record.id,
    kind: credentialKind(record),
    granularity: range.granularity,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    total: withoutStart(totalOf(buckets)),
    buckets,
    // The last 30 days whatever the range (contract §19): what it may call and what it used.
    ...leastPrivilege(catalogueOf(deps), record, totalOf(bucketsOf(monthDays, month))),
  };
}

const withoutStart = (tally: Tally): Tally => ({
  calls: tally.calls,
  refused: tally.refused,
  tools: tally.tools,
  ...(tally.refused_tools && { refused_tools: tally.refused_tools }),
  ...(tally.unnamed && { unnamed: tally.unnamed }),
});
