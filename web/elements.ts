/**
 * The dashboard elements, published as `@svc/mcp-api-keys/elements`. Importing this module
 * defines each element (`customElements.define`), once.
 */
export {
  type ReauthenticateDetail,
  SvcMcpApiKeys,
  type Workspace,
} from './component/svc-mcp-api-keys.ts';
export { SvcMcpWorkspaceKeys } from './component/workspace-keys/svc-mcp-workspace-keys.ts';
