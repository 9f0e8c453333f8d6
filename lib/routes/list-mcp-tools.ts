import * as z from 'zod';
import { ToolSchema } from '#lib/http/tool-schemas';
import { catalogueOf } from '#lib/keys/service';
import { defineRoute, ok } from './route-module.ts';

export const ListMcpToolsResponse = z
  .object({ data: z.array(ToolSchema) })
  .meta({ id: 'ListMcpToolsResponse' });

/** GET /v1/mcp/tools: the MCP server's tool catalogue (contract §19), what credentials and policies name. */
export default defineRoute({
  name: 'list-mcp-tools',
  operationId: 'listMcpTools',
  method: 'GET',
  path: '/v1/mcp/tools',
  auth: 'jwt',
  summary: 'List the MCP server’s tools',
  description:
    'The deployment’s catalogue (`mcpTools`), in the order people see it: each tool’s name, the scope a call needs, its title and whether the deployment states it destroys data. A credential’s `tools` and a policy’s `allowed_tools` name these.',
  tag: 'api-keys',
  request: {},
  success: { status: 200, description: 'The catalogue.', schema: ListMcpToolsResponse },
  errors: [],
  grants: { pepper: false, dynamodb: [] },
  handle:
    ({ service }) =>
    async () =>
      ok({
        data: catalogueOf(service).map((t) => ({
          name: t.name,
          scope: t.scope,
          title: t.title ?? t.name,
          destructive: t.destructive === true,
        })),
      }),
});
