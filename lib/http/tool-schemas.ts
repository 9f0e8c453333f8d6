import * as z from 'zod';
import { SCOPES } from '#lib/access/scopes';
import { MAX_TOOLS } from '#lib/access/tool-setting';
import { TOOL_NAME } from '#lib/access/tools';

const ScopeSchema = z.enum(SCOPES);

/** The schemas of contract §19's tools: a tool's name, a credential's list, what a policy leaves it, the catalogue. */

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
