import type { Tally } from '#lib/usage/model';
import { bucketsOf, daysIn, type Granularity, totalOf, type UsageDeps, usageRange } from '#lib/usage/report';
import { credentialKind } from './model.ts';
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
