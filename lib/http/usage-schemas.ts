import * as z from 'zod';
import { CREDENTIAL_KINDS } from '#lib/keys/model';
import { REFUSAL_REASONS } from '#lib/usage/model';
import { GRANULARITIES, USAGE_GROUPINGS } from '#lib/usage/report';
import { Timestamp } from './fields.ts';

/** The usage endpoints' schemas (contract §18). */

const RangeBound = (which: string) =>
  z
    .string()
    .optional()
    .meta({ description: `${which} (ISO 8601), widened to whole buckets.`, example: '2026-11-01T00:00:00Z' });

export const UsageRangeQuery = {
  from: RangeBound('Start of the range (default: 30 days before `to` by day, 24 hours by hour)'),
  to: RangeBound('End of the range (default: now)'),
};

export const CredentialUsageQuery = z.strictObject({
  ...UsageRangeQuery,
  granularity: z.enum(GRANULARITIES).optional().meta({
    description: 'Buckets of an hour (a range of at most 14 days) or a day (at most 92). Default: `day`.',
  }),
});

export const WorkspaceUsageQuery = z.strictObject({
  ...UsageRangeQuery,
  group_by: z.enum(USAGE_GROUPINGS).optional().meta({
    description:
      'Totals per credential, per OAuth client (API keys under `api_key`) or per tool. Default: `credential`.',
  }),
});

const Refused = z
  .partialRecord(z.enum(REFUSAL_REASONS), z.int().nonnegative())
  .meta({ description: 'Refused calls by reason (contract §7).' });
const Tools = z
  .record(z.string(), z.int().nonnegative())
  .meta({ description: 'Allowed `tools/call`s by tool name (past 50 names in a bucket, `(other)`).' });

const TallyFields = {
  calls: z
    .int()
    .nonnegative()
    .meta({ description: 'Every call presenting the credential, allowed or refused.' }),
  refused: Refused,
  tools: Tools,
};
export const UsageTally = z.object(TallyFields).meta({ id: 'UsageTally' });

export const CredentialUsageResponse = z
  .object({
    credential_id: z.uuid(),
    kind: z.enum(CREDENTIAL_KINDS),
    granularity: z.enum(GRANULARITIES),
    from: Timestamp,
    to: Timestamp,
    total: UsageTally,
    buckets: z.array(z.object({ start: Timestamp, ...TallyFields })),
  })
  .meta({ id: 'CredentialUsage' });

export const WorkspaceUsageResponse = z
  .object({
    workspace_id: z.uuid(),
    from: Timestamp,
    to: Timestamp,
    group_by: z.enum(USAGE_GROUPINGS),
    total: UsageTally,
    groups: z
      .array(
        z.object({
          key: z.string().meta({
            description: 'The credential’s id, the client’s id (`api_key` for keys) or the tool’s name.',
          }),
          kind: z.enum(CREDENTIAL_KINDS).optional(),
          user_id: z.string().optional().meta({ description: 'For a credential: its creator.' }),
          client_name: z.string().optional().meta({ description: 'For a client: its name.' }),
          ...TallyFields,
        }),
      )
      .meta({ description: 'At most 100 groups, the most used first.' }),
    revoked_still_presented: z
      .array(
        z.object({
          credential_id: z.uuid(),
          kind: z.enum(CREDENTIAL_KINDS),
          name: z.string(),
          user_id: z.string(),
          revoked_at: Timestamp.nullable(),
          presented: z.int().positive().meta({ description: 'Calls refused as revoked in the range.' }),
        }),
      )
      .meta({
        description: 'Credentials refused as revoked in the range: the sign of a leaked or forgotten one.',
      }),
  })
  .meta({ id: 'WorkspaceUsage' });
