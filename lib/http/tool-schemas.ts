import * as z from 'zod';
import { SCOPES } from '#lib/access/scopes';
import { MAX_TOOLS } from '#lib/access/tool-setting';
import { TOOL_NAME } from '#lib/access/tools';

const ScopeSchema = z.enum(SCOPES);

/**
 * The schemas of contract §19: a tool's name, a credential's list, what a policy leaves it, the
 * catalogue, and limits.
 */

export const ToolName = z.string().regex(TOOL_NAME, 'must be a tool name').meta({
  description: 'A tool of the MCP server’s catalogue (`GET /v1/mcp/tools`).',
  example: 'list_forms',
});

/** A list of distinct tool names (a credential's own, or a policy's). */
export const ToolList = z
  .array(ToolName)
  .max(MAX_TOOLS, `must list at most ${MAX_TOOLS} tools`)
  .refine((tools) => new Set(tools).size === tools.length, 'must not list a tool twice')
  .meta({ uniqueItems: true });

/** `tools` of create and consent approve. */
export const CredentialTools = ToolList.nullable().optional().meta({
  description:
    'The tools it may call, each in the catalogue and needing a scope it holds; absent or null: every tool its scopes allow.',
});

export const WorkspaceRulesSchema = z
  .record(
    z.string(),
    z.object({
      tools: z.array(z.string()).optional().meta({ description: 'The tools the workspace’s policy allows.' }),
      scopes: z
        .array(ScopeSchema)
        .optional()
        .meta({ description: 'The scopes the policy leaves it there, when it narrows them.' }),
      per_minute: z.int().optional().meta({ description: 'The policy’s cap on its calls per UTC minute.' }),
      per_day: z.int().optional().meta({ description: 'The policy’s cap on its calls per UTC day.' }),
    }),
  )
  .meta({
    id: 'WorkspaceRules',
    description: 'By workspace: what its policy leaves the credential there, where a policy narrows it.',
  });

export const ToolSchema = z
  .object({
    name: ToolName,
    scope: ScopeSchema,
    title: z.string(),
    destructive: z.boolean().meta({ description: 'The deployment’s statement that the tool destroys data.' }),
  })
  .meta({ id: 'McpTool' });

/** The most calls a limit may name: a day of 10,000 calls a second. */
export const MAX_LIMIT = 864_000_000;

/** A limit: calls per window, at least 1. */
const CallCount = (what: string) =>
  z
    .int('must be a whole number of calls')
    .min(1, 'must be at least 1')
    .max(MAX_LIMIT, `must be at most ${MAX_LIMIT}`)
    .meta({ description: what });

/** `limits` of create, consent approve and PATCH. */
export const LimitsSchema = z
  .strictObject({
    per_minute: CallCount('Calls allowed per UTC minute.').optional(),
    per_day: CallCount('Calls allowed per UTC day.').optional(),
  })
  .meta({
    id: 'Limits',
    description: 'Calls allowed per UTC minute and per UTC day (contract §19); one left out is no limit.',
  });

/** A policy's cap: calls per window for each credential reaching the workspace, or null for none. */
export const PolicyCap = (window: string) =>
  CallCount(
    `At most this many calls per UTC ${window} for each credential reaching the workspace; null: none.`,
  ).nullable();

export const EffectiveLimitsSchema = z
  .array(
    z.object({
      window: z.enum(['minute', 'day']),
      limit: z.int(),
      by: z
        .enum(['credential', 'policy'])
        .meta({ description: 'Its owner’s limit, or a workspace policy’s cap.' }),
      workspace_id: z.string().optional().meta({ description: 'For a policy’s cap: the workspace.' }),
      calls: z
        .int()
        .meta({ description: 'Its calls counted in the current window (every instance’s, to the second).' }),
    }),
  )
  .meta({
    description: 'The limits that apply now (its own and its workspaces’ caps, the smallest per window).',
  });
