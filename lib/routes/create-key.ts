import * as z from 'zod';
import { bodyLimitText } from '#lib/http/openapi-tags';
import { ApiKey, credentialFields, KeyMetadataSchema, NAME_PATTERN } from '#lib/http/schemas';
import { createKey } from '#lib/keys/lifecycle';
import { REQUEST_LIMITS } from '#lib/limits';
import { countMetric, logger } from '#lib/observability';
import { issuedReply } from './replies.ts';
import { defineRoute } from './route-module.ts';

const { nameMaxLength } = REQUEST_LIMITS;

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
      ...credentialFields(maxExpiryDays),
    })
    .meta({ id: 'CreateKeyRequest' });
}

export const CreateKeyResponse = z
  .object({ api_key: ApiKey, metadata: KeyMetadataSchema })
  .meta({ id: 'CreateKeyResponse' });

/** POST /v1/mcp/api-keys: mints a key and shows it once. */
export default defineRoute({
  name: 'create-key',
  operationId: 'createKey',
  method: 'POST',
  path: '/v1/mcp/api-keys',
  auth: 'step-up',
  summary: 'Create an API key (shown once)',
  description: `Needs a verified email and a login from the last 900 s. ${bodyLimitText(REQUEST_LIMITS.maxBodyBytes)} \`workspace_ids\` and \`scopes\` hold no duplicates (workspace ids compared case-insensitively): a duplicate is 400 \`validation_failed\` naming it.`,
  tag: 'api-keys',
  request: { body: (settings) => createKeyBody(settings.maxExpiryDays) },
  success: {
    status: 201,
    description: 'Created. `api_key` is shown only in this response.',
    schema: CreateKeyResponse,
    issuesKey: true,
  },
  errors: [
    'account_disabled',
    'workspace_access_denied',
    'workspace_policy_denied',
    'key_limit_reached',
    'conflict',
  ],
  grants: {
    pepper: true,
    dynamodb: [
      // The transaction puts the key and its event and updates the user's slot item.
      { actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], on: ['keys'] },
      // The memberships, and the policies of the workspaces (contract §12), in one BatchGetItem.
      { actions: ['dynamodb:BatchGetItem'], on: ['memberships', 'keys'] },
    ],
  },
  handle:
    ({ service }) =>
    async ({ body, caller }) => {
      const issued = await createKey(service, {
        userId: caller.userId,
        name: body.name,
        workspaceIds: body.workspace_ids,
        scopes: body.scopes,
        expiresInDays: body.expires_in_days,
        tools: body.tools,
        limits: body.limits,
      });
      logger.appendKeys({ key_id: issued.metadata.id });
      countMetric('KeysCreated');
      return issuedReply(issued);
    },
});
