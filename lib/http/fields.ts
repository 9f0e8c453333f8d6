import * as z from 'zod';
import { SCOPES } from '#lib/access/scopes';
import { REQUEST_LIMITS } from '#lib/limits';
import { CredentialTools, LimitsSchema } from './tool-schemas.ts';

const { pageSize } = REQUEST_LIMITS;

/**
 * The fields the API's schemas are built of (lib/http/schemas.ts re-exports them for the routes):
 * ids, names, scopes, timestamps, paging, and what a new credential asks for.
 */

export const Uuid = z
  .uuid({ error: 'must be a UUID' })
  .transform((s) => s.toLowerCase())
  .meta({ example: '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61' });

export function distinct<T>(label: string) {
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

export const ScopeSchema = z
  .enum(SCOPES)
  .meta({ id: 'Scope', description: 'A scope a key or grant can hold.' });

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

/** A page request from the query (`limit`, `cursor`): the default size when none is asked for. */
export const pageRequest = (query: { limit?: number | undefined; cursor?: string | undefined }) => ({
  limit: query.limit ?? pageSize.default,
  cursor: query.cursor,
});

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

export const KeyIdPath = z.strictObject({ key_id: Uuid });

export const Timestamp = z.iso.datetime().meta({ example: '2026-11-22T10:00:00.000Z' });

/** A page of `item`s and the cursor of the next one. */
export const pageOf = (item: z.ZodType, id: string) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable() }).meta({ id });

/**
 * What a new credential asks for, a key or an approved OAuth grant alike: its workspaces, scopes
 * and lifetime; `maxExpiryDays` is the deployment maximum.
 */
export function credentialFields(maxExpiryDays: number) {
  const { maxWorkspaces } = REQUEST_LIMITS;
  return {
    workspace_ids: z
      .array(Uuid)
      .min(1, 'must list at least 1 workspace')
      .max(maxWorkspaces, `must list at most ${maxWorkspaces} workspaces`)
      .superRefine(distinct('workspace id'))
      .meta({ uniqueItems: true, description: 'Distinct workspace ids, compared case-insensitively.' }),
    scopes: z
      .array(ScopeSchema)
      .min(1, 'must list at least 1 scope')
      .max(3, 'must list at most 3 scopes')
      .superRefine(distinct('scope'))
      .meta({ uniqueItems: true, description: 'Distinct scope names.' }),
    expires_in_days: z
      .number()
      .int('must be a whole number of days')
      .min(1, 'must be at least 1')
      .max(maxExpiryDays, `must be at most ${maxExpiryDays} (the deployment maximum)`)
      .optional(),
    tools: CredentialTools,
    limits: LimitsSchema.optional(),
  };
}
