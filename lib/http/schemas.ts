import * as z from 'zod';
import { SCOPES } from '#lib/access/scopes';
import { ERROR_CATALOG } from '#lib/errors';
import { KEY_STATUSES } from '#lib/keys/model';
import { REQUEST_LIMITS } from '#lib/limits';

const { nameMaxLength, maxWorkspaces, pageSize } = REQUEST_LIMITS;

/**
 * Request and response schemas of the management API (contract §5). Handlers validate with
 * them and `npm run openapi` generates docs/openapi.json from the same objects.
 */
const Uuid = z
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

// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse control characters
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/;

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
        .regex(NO_CONTROL_CHARACTERS, 'must not contain control characters'),
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

export const ListKeysQuery = z.strictObject({
  limit: Limit.optional().meta({
    description: `Page size, ${pageSize.min}–${pageSize.max}.`,
    default: String(pageSize.default),
  }),
  cursor: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .meta({ description: 'Opaque `next_cursor` of the previous page.' }),
  status: z.enum(KEY_STATUSES).optional().meta({ description: 'Only keys with this status (default: all).' }),
});

export const KeyIdPath = z.strictObject({ key_id: Uuid });

const Timestamp = z.iso.datetime().meta({ example: '2026-11-22T10:00:00.000Z' });

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
