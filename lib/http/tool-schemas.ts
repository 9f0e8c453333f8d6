import * as z from 'zod';
import { SCOPES } from '#lib/access/scopes';
import { MAX_TOOLS } from '#lib/access/tool-setting';
import { TOOL_NAME } from '#lib/access/tools';

/**
 * The schemas of contract §19: a tool's name, a credential's list, what a policy leaves it, the
 * catalogue, and limits. Their descriptions stay short: every one is in the client package's
 * types, which stay within 50 kB.
 */

const ScopeSchema = z.enum(SCOPES);

export const ToolName = z.string().regex(TOOL_NAME, 'must be a tool name').meta({ example: 'list_forms' });

/** A list of distinct tool names (a credential's own, or a policy's). */
export const ToolList = z
  .array(ToolName)
  .max(MAX_TOOLS, `must list at most ${MAX_TOOLS} tools`)
  .refine((tools) => new Set(tools).size === tools.length, 'must not list a tool twice')
  .meta({ uniqueItems: true });

/** `tools` of create and consent approve. */
export const CredentialTools = ToolList.nullable()
  .optional()
  .meta({ description: 'Tools it may call, each needing a scope it holds; null: all its scopes allow.' });

export const WorkspaceRulesSchema = z
  .record(
    z.string(),
    z.object({
      tools: z.array(z.string()).optional(),
      scopes: z.array(ScopeSchema).optional(),
      per_minute: z.int().optional(),
      per_day: z.int().optional(),
    }),
  )
  .meta({
    id: 'WorkspaceRules',
    description: 'By workspace: the tools, scopes and caps its policy leaves it, where it narrows it.',
  });

export const ToolSchema = z
  .object({
    name: ToolName,
    scope: ScopeSchema,
    title: z.string(),
    destructive: z.boolean().meta({ description: 'The deployment states it destroys data.' }),
  })
  .meta({ id: 'McpTool' });

/** The most calls a limit may name: a day of 10,000 calls a second. */
export const MAX_LIMIT = 864_000_000;

/** A limit: calls per window, at least 1. */
const CallCount = () =>
  z
    .int('must be a whole number of calls')
    .min(1, 'must be at least 1')
    .max(MAX_LIMIT, `must be at most ${MAX_LIMIT}`);

/** `limits` of create, consent approve and PATCH. */
export const LimitsSchema = z
  .strictObject({ per_minute: CallCount().optional(), per_day: CallCount().optional() })
  .meta({ id: 'Limits', description: 'Calls allowed per UTC minute and day; one left out is no limit.' });

/** A policy's cap: calls per window for each credential reaching the workspace, or null for none. */
export const PolicyCap = (window: string) =>
  CallCount()
    .nullable()
    .meta({ description: `Calls per UTC ${window} for each credential; null: none.` });

export const EffectiveLimitsSchema = z
  .array(
    z.object({
      window: z.enum(['minute', 'day']),
      limit: z.int(),
      by: z.enum(['credential', 'policy']),
      workspace_id: z.string().optional(),
      calls: z.int().meta({ description: 'Calls counted in the current window.' }),
    }),
  )
  .meta({ description: 'The smallest limit per window: its own or a workspace policy’s (`by`).' });
