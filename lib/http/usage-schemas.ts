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
  refused_tools: z
    .record(z.string(), z.int().nonnegative())
    .optional()
    .meta({ description: 'Calls refused as `tool_not_allowed`, by tool name (contract §19).' }),
  unnamed: z.int().nonnegative().optional().meta({
    description: 'Allowed calls whose MCP method was not sent (older clients): their tool is unknown.',
  }),
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
    tools: z.array(z.string()).meta({
      description:
        'The tools it may call in at least one workspace, by its scopes, its own list and the policies.',
    }),
    tools_used_30d: z.array(z.string()).meta({
      description: 'Those of `tools` it called in the last 30 days, whatever the range (contract §19).',
    }),
    calls_tool_unknown_30d: z.int().nonnegative().meta({
      description:
        'Its allowed calls of the last 30 days whose tool is unknown (the client sent no `Mcp-Method`, or no usable tool name): while any, restricting it to `tools_used_30d` may cut off a tool it uses.',
    }),
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
    unused_write_tools: z
      .array(
        z.object({
          credential_id: z.uuid(),
          kind: z.enum(CREDENTIAL_KINDS),
          name: z.string(),
          user_id: z.string(),
          tools: z
            .array(z.string())
            .meta({ description: 'Its write or destructive tools here that it did not call.' }),
          calls_tool_unknown: z
            .int()
            .nonnegative()
            .meta({ description: 'Its calls in the range whose tool is unknown.' }),
        }),
      )
      .meta({
        description:
          'Active credentials older than the range holding write or destructive tools here that they did not call in the range (by default the last 30 days): least privilege suggests taking them away (contract §19).',
      }),
  })
  .meta({ id: 'WorkspaceUsage' });
