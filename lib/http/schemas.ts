import * as z from 'zod';
import { SCOPES } from '#lib/access/scopes';
import { ERROR_CATALOG } from '#lib/errors';
import { ACTOR_TYPES, EVENT_TYPES, EXPIRY_THRESHOLDS } from '#lib/events/model';
import { KEY_STATUSES } from '#lib/keys/model';
import { REQUEST_LIMITS } from '#lib/limits';

const { nameMaxLength, maxWorkspaces, pageSize } = REQUEST_LIMITS;

/**
 * Request and response schemas of the management API (contract §5). Handlers validate with
 * them and `npm run openapi` generates docs/openapi.json from the same objects.
 */
export const Uuid = z
  .uuid({ error: 'must be a UUID' })
  .transform((s) => s.toLowerCase())
  .meta({ example: '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61' });

function distinct<T>(label: string) {
  return (items: T[], ctx: z.RefinementCtx) => {
    const seen = new Set<T>();
    items.forEach((item, index) => {
      if (seen.has(item)) ctx.addIssue({ code: 'custom', message: `duplicate ${label}`, path: [index] });
      seen.add(item);
    });
  };
}

/**
 * No control (Cc) or format (Cf) characters, nor line and paragraph separators: format
 * characters include bidirectional overrides (U+202E) and invisible ones (U+200B) that would
 * make a key's name display as something else.
 */
export const NAME_PATTERN = /^[^\p{Cc}\p{Cf}\u2028\u2029]*$/u;

export const ScopeSchema = z.enum(SCOPES);

/** The create body; `maxExpiryDays` is the deployment maximum. */
export function createKeyBody(maxExpiryDays: number) {
  return z
    .strictObject({
      name: z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(nameMaxLength, `must be at most ${nameMaxLength} characters`)
        .regex(NAME_PATTERN, 'must not contain control or format characters (such as U+202E)')
        .meta({
          description: `Trimmed of surrounding whitespace, then 1–${nameMaxLength} characters with no control or format characters (Unicode categories Cc and Cf, e.g. the bidirectional override U+202E) and no line or paragraph separators.`,
          example: 'Claude Desktop (laptop)',
          // The generator keeps a regular expression's flags in the pattern; this is its source.
          pattern: NAME_PATTERN.source,
        }),
      workspace_ids: z
        .array(Uuid)
        .min(1, 'must list at least 1 workspace')
        .max(maxWorkspaces, `must list at most ${maxWorkspaces} workspaces`)
        .superRefine(distinct('workspace id')),
      scopes: z
        .array(ScopeSchema)
        .min(1, 'must list at least 1 scope')
        .max(3, 'must list at most 3 scopes')
        .superRefine(distinct('scope')),
      expires_in_days: z
        .number()
        .int('must be a whole number of days')
        .min(1, 'must be at least 1')
        .max(maxExpiryDays, `must be at most ${maxExpiryDays} (the deployment maximum)`)
        .optional(),
    })
    .meta({ id: 'CreateKeyRequest' });
}

/** Routes without a body accept nothing, an empty body or `{}`. */
export const EmptyBody = z.strictObject({}).meta({ id: 'EmptyBody' });

const Limit = z
  .string()
  .regex(/^\d{1,3}$/, `must be an integer from ${pageSize.min} to ${pageSize.max}`)
  .transform(Number)
  .pipe(
    z
      .number()
      .min(pageSize.min, `must be at least ${pageSize.min}`)
      .max(pageSize.max, `must be at most ${pageSize.max}`),
  );

export const PageLimit = Limit.optional().meta({
  description: `Page size, ${pageSize.min}–${pageSize.max}.`,
  default: String(pageSize.default),
});
export const Cursor = z
  .string()
  .min(1)
  .max(512)
  .optional()
  .meta({ description: 'Opaque `next_cursor` of the previous page.' });

export const ListKeysQuery = z.strictObject({
  limit: PageLimit,
  cursor: Cursor,
  status: z.enum(KEY_STATUSES).optional().meta({ description: 'Only keys with this status (default: all).' }),
});

export const ListEventsQuery = z.strictObject({ limit: PageLimit, cursor: Cursor });

export const KeyIdPath = z.strictObject({ key_id: Uuid });

export const Timestamp = z.iso.datetime().meta({ example: '2026-11-22T10:00:00.000Z' });

export const KeyMetadataSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    key_hint: z.string().meta({ example: 'svc_mcp_v1_…Q9xZ' }),
    scopes: z.array(ScopeSchema),
    workspace_ids: z.array(z.uuid()),
    status: z.enum(KEY_STATUSES),
    created_at: Timestamp,
    expires_at: Timestamp,
    last_used_at: Timestamp.nullable(),
    revoked_at: Timestamp.nullable(),
    rotated_from: z.uuid().nullable(),
    replaced_by: z.uuid().nullable(),
    removed_workspace_ids: z.array(z.uuid()).meta({
      description:
        'Workspaces a workspace administrator (or the workspace’s policy) cut this key or an earlier key of its rotation chain off from.',
    }),
  })
  .meta({ id: 'KeyMetadata' });

const ApiKey = z
  .string()
  .regex(/^svc_mcp_v1_[0-9A-Za-z]{71}$/)
  .meta({ description: 'The full key, shown once.' });

export const CreateKeyResponse = z
  .object({ api_key: ApiKey, metadata: KeyMetadataSchema })
  .meta({ id: 'CreateKeyResponse' });
export const RotateKeyResponse = z
  .object({ api_key: ApiKey, metadata: KeyMetadataSchema, revoked_key: KeyMetadataSchema })
  .meta({ id: 'RotateKeyResponse' });
export const ListKeysResponse = z
  .object({ data: z.array(KeyMetadataSchema), next_cursor: z.string().nullable() })
  .meta({ id: 'ListKeysResponse' });
export const RevokeKeyResponse = z.object({ metadata: KeyMetadataSchema }).meta({ id: 'RevokeKeyResponse' });

export const Details = {
  'key.created': z.object({
    name: z.string(),
    scopes: z.array(ScopeSchema),
    workspace_ids: z.array(z.uuid()),
    expires_at: Timestamp,
    rotated_from: z.uuid().nullable(),
  }),
  'key.rotated': z.object({ replaced_by: z.uuid() }),
  'key.revoked': z.object({}),
  'key.leak_revoked': z.object({
    source: z.string().nullable().meta({ description: 'Where the key was found (a URL), if known.' }),
  }),
  'key.expiring': z.object({
    expires_at: Timestamp,
    days_left: z
      .union(EXPIRY_THRESHOLDS.map((d) => z.literal(d)))
      .meta({ description: 'The threshold crossed.' }),
  }),
  'key.expired': z.object({ expires_at: Timestamp }),
  'key.workspace_removed': z.object({
    workspace_id: z.uuid(),
    reason: z.enum(['admin', 'policy']).meta({
      description:
        '`admin`: a workspace administrator cut the key off; `policy`: the workspace’s policy did.',
    }),
  }),
} satisfies Record<(typeof EVENT_TYPES)[number], z.ZodType>;

const eventOf = <T extends (typeof EVENT_TYPES)[number]>(type: T) =>
  z.object({
    id: z.uuid().meta({ description: 'Unique; consumers of published events dedupe by it.' }),
    type: z.literal(type),
    occurred_at: Timestamp,
    key_id: z.uuid(),
    lineage_id: z.uuid().meta({ description: 'The first key of the rotation chain.' }),
    user_id: z.string(),
    actor: z.object({ type: z.enum(ACTOR_TYPES), id: z.string().nullable() }),
    details: Details[type],
  });

/** An audit event (contract §10); `type` decides the shape of `details`. */
export const KeyEventSchema = z
  .discriminatedUnion(
    'type',
    EVENT_TYPES.map((type) => eventOf(type)) as unknown as [
      ReturnType<typeof eventOf>,
      ...ReturnType<typeof eventOf>[],
    ],
  )
  .meta({ id: 'KeyEvent' });
export const ListEventsResponse = z
  .object({ data: z.array(KeyEventSchema), next_cursor: z.string().nullable() })
  .meta({ id: 'ListEventsResponse' });

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(ERROR_CATALOG) as [keyof typeof ERROR_CATALOG]),
    request_id: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem' });
