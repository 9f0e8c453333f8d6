import * as z from 'zod';
import { ERROR_CATALOG } from '#lib/errors';
import { ACTOR_TYPES, EVENT_TYPES, EXPIRY_THRESHOLDS, GRANT_REVOKED_REASONS } from '#lib/events/model';
import { CREDENTIAL_KINDS, KEY_STATUSES } from '#lib/keys/model';
import { ScopeSchema, Timestamp, Uuid } from './fields.ts';
import { EffectiveLimitsSchema, ToolList, WorkspaceRulesSchema } from './tool-schemas.ts';

/**
 * The schemas the management API's routes share (contract §5); each route's own request and
 * response schemas live in its module in lib/routes/. `npm run openapi` generates
 * docs/openapi.json from the same objects. The fields they are built of are in fields.ts,
 * exported from here too.
 */

export {
  Cursor,
  credentialFields,
  distinct,
  EmptyBody,
  KeyIdPath,
  NAME_PATTERN,
  PageLimit,
  pageOf,
  pageRequest,
  ScopeSchema,
  Timestamp,
  Uuid,
} from './fields.ts';

/** What every view of a key starts with. */
const KEY_IDENTITY = {
  id: z.uuid(),
  name: z.string(),
  key_hint: z.string().meta({ example: 'svc_mcp_v1_…Q9xZ' }),
  scopes: z.array(ScopeSchema),
};

/** A key's life in every view of it (`KeyTimeline`). */
const KEY_TIMELINE = {
  created_at: Timestamp,
  expires_at: Timestamp,
  last_used_at: Timestamp.nullable(),
  revoked_at: Timestamp.nullable(),
  rotated_from: z.uuid().nullable(),
  replaced_by: z.uuid().nullable(),
};

export const GrantClientSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    verified_domain: z.string().nullable().meta({
      description:
        'The host of the app’s metadata document; null for an app registered dynamically (unverified).',
    }),
  })
  .meta({ id: 'GrantClient' });

/** The IdP of an enterprise grant, as lists show it. */
const IdentityProviderHost = z.string().meta({ description: 'For an enterprise grant: its IdP’s host.' });

export const KeyMetadataSchema = z
  .object({
    ...KEY_IDENTITY,
    workspace_ids: z.array(z.uuid()),
    status: z.enum(KEY_STATUSES),
    ...KEY_TIMELINE,
    removed_workspace_ids: z.array(z.uuid()).meta({
      description:
        'Workspaces an administrator or a policy cut this key (or an earlier key of its rotation chain) off from.',
    }),
    tools: ToolList.nullable().meta({ description: 'Its own tools; null: all its scopes allow.' }),
    workspace_rules: WorkspaceRulesSchema,
    limits: z
      .object({ per_minute: z.int().nullable(), per_day: z.int().nullable() })
      .meta({ description: 'Its own limits; null: none.' }),
    effective_limits: EffectiveLimitsSchema,
    kind: z.enum(CREDENTIAL_KINDS).meta({
      description:
        '`api_key`; `oauth_grant`: an app approved through OAuth; `enterprise_grant`: an app the person’s IdP let in. Grants cannot be rotated.',
    }),
    client: GrantClientSchema.optional().meta({ description: 'For a grant: the app it was given to.' }),
    redirect_host: z
      .string()
      .optional()
      .meta({ description: 'For a consent grant: the host its app’s redirect URI points at.' }),
    identity_provider: IdentityProviderHost.optional(),
  })
  .meta({ id: 'KeyMetadata' });

export const ApiKey = z
  .string()
  .regex(/^svc_mcp_v1_[0-9A-Za-z]{71}$/)
  .meta({ description: 'The full key, shown once.' });

export const Details = {
  'key.created': z.object({
    name: z.string(),
    scopes: z.array(ScopeSchema),
    workspace_ids: z.array(z.uuid()),
    expires_at: Timestamp,
    rotated_from: z.uuid().nullable(),
  }),
  'key.rotated': z.object({ replaced_by: z.uuid() }),
  'key.updated': z.object({
    tools_before: z.array(z.string()).nullable().optional(),
    tools_after: z.array(z.string()).nullable().optional(),
    limits_before: z
      .object({ per_minute: z.int().optional(), per_day: z.int().optional() })
      .nullable()
      .optional(),
    limits_after: z.object({ per_minute: z.int().optional(), per_day: z.int().optional() }).optional(),
  }),
  'key.revoked': z.object({
    reason: z.literal('identity_provider').optional(),
  }),
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
  'grant.created': z.object({
    client: GrantClientSchema,
    scopes: z.array(ScopeSchema),
    workspace_ids: z.array(z.uuid()),
    expires_at: Timestamp,
    via: z.enum(['consent', 'identity_provider']).optional().meta({
      description: '`consent`, or `identity_provider` (an ID-JAG). Absent before enterprise grants.',
    }),
    idp: z.string().optional().meta({ description: 'For `identity_provider`: the IdP’s issuer.' }),
  }),
  'grant.updated': z.object({
    scopes_added: z.array(ScopeSchema).meta({ description: 'Scopes added by a step-up.' }),
    workspace_ids_added: z.array(z.string()).optional(),
  }),
  'grant.revoked': z.object({
    reason: z.enum(GRANT_REVOKED_REASONS).meta({
      description:
        '`user`: the person; `client`: the app; `admin`/`policy`: the workspace; `leak`: a leak report; `identity_provider`: their IdP; `code_replay`/`refresh_reuse`: a stolen code or refresh token.',
    }),
  }),
} satisfies Record<(typeof EVENT_TYPES)[number], z.ZodType>;

/**
 * What every audit event carries whatever its `type` (contract §10), defined once: the OpenAPI
 * document, and the types generated from it, state these fields once for all the event types.
 */
const EventEnvelope = z.object({
  id: z.uuid().meta({ description: 'Unique; consumers of published events dedupe by it.' }),
  occurred_at: Timestamp,
  key_id: z.uuid(),
  lineage_id: z.uuid().meta({ description: 'The first key of the rotation chain.' }),
  user_id: z.string(),
  actor: z.object({ type: z.enum(ACTOR_TYPES), id: z.string().nullable() }),
});

const eventOf = <T extends (typeof EVENT_TYPES)[number]>(type: T) =>
  z.object({ type: z.literal(type), details: Details[type] });

/** An audit event (contract §10): the envelope, and `type`, which decides the shape of `details`. */
export const KeyEventSchema = z
  .intersection(
    EventEnvelope,
    z.discriminatedUnion(
      'type',
      EVENT_TYPES.map((type) => eventOf(type)) as unknown as [
        ReturnType<typeof eventOf>,
        ...ReturnType<typeof eventOf>[],
      ],
    ),
  )
  .meta({ id: 'KeyEvent' });

/** Workspace governance (contract §12): what its routes share. */
export const WorkspaceIdPath = z.strictObject({ workspace_id: Uuid });
export const WorkspaceKeyPath = z.strictObject({ workspace_id: Uuid, key_id: Uuid });

export const WORKSPACE_KEY_STATUSES = [...KEY_STATUSES, 'removed'] as const;

export const WorkspaceKeySchema = z
  .object({
    ...KEY_IDENTITY,
    user_id: z.string().meta({ description: 'The key’s creator.' }),
    status: z.enum(WORKSPACE_KEY_STATUSES).meta({
      description: '`removed` once the key was cut off from this workspace, whatever its state elsewhere.',
    }),
    workspace_access: z.enum(['active', 'removed']),
    ...KEY_TIMELINE,
    kind: z.enum(CREDENTIAL_KINDS),
    client: GrantClientSchema.optional().meta({ description: 'For a grant: the app it was given to.' }),
    identity_provider: IdentityProviderHost.optional(),
  })
  .meta({
    id: 'WorkspaceKey',
    description: 'A key as the workspace’s administrators see it: never the key’s other workspaces.',
  });

/** The `oauth_clients` rule of a workspace policy (contract §15). */
export const OAuthClientsRuleSchema = z
  .union([
    z.enum(['any', 'verified']),
    z
      .array(
        z
          .string()
          .min(1)
          .max(253)
          .regex(
            /^[a-z0-9.-]+(:[0-9]{1,5})?$/,
            'must be a lower-case host name (with a port only when not 443)',
          ),
      )
      .max(50, 'must list at most 50 domains'),
  ])
  .meta({
    description:
      'Which OAuth apps may connect: `any`, `verified` (a metadata document) or a list of app domains.',
  });

/** The `credential_kinds` rule of a workspace policy (contract §17): never empty, no kind twice. */
export const CredentialKindsRuleSchema = z
  .array(z.enum(CREDENTIAL_KINDS))
  .min(1, 'must admit at least one kind (to admit none, set mcp_access to disabled)')
  .refine((kinds) => new Set(kinds).size === kinds.length, 'must not repeat a kind')
  .meta({
    description:
      'Which kinds of credential may reach the workspace: `api_key`, `oauth_grant` (an app a person approved), `enterprise_grant` (an app the person’s IdP let in); every kind when left out.',
  });

export const PolicyFields = {
  mcp_access: z.enum(['enabled', 'disabled']),
  allowed_scopes: z.array(ScopeSchema),
  max_expiry_days: z.number().int().nullable(),
  oauth_clients: OAuthClientsRuleSchema,
  // Absent from an event when the policy admits every kind (or was set before the rule existed).
  credential_kinds: z.array(z.enum(CREDENTIAL_KINDS)).optional(),
  // Absent from an event when the policy allows every tool.
  allowed_tools: z.array(z.string()).nullable().optional(),
  max_calls_per_minute: z.int().nullable().optional(),
  max_calls_per_day: z.int().nullable().optional(),
};

export const PolicyResponse = z
  .object({
    ...PolicyFields,
    updated_at: Timestamp.nullable().meta({ description: 'Null while the default applies.' }),
    updated_by: z.string().nullable(),
  })
  .meta({ id: 'WorkspacePolicyResponse' });

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
