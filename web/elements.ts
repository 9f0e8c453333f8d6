/**
 * The dashboard elements, published as `@svc/mcp-api-keys/elements`. Importing this module
 * defines each element (`customElements.define`), once: import it for its effect
 * (`import '@svc/mcp-api-keys/elements'`); an `import type` of it defines nothing.
 */
import type { SvcMcpConsent, SvcMcpConsentEventMap } from './component/consent/svc-mcp-consent.ts';
import type { SvcMcpApiKeys, SvcMcpApiKeysEventMap } from './component/svc-mcp-api-keys.ts';
import type { SvcMcpWorkspaceKeys } from './component/workspace-keys/svc-mcp-workspace-keys.ts';

/** What the events carry (the client's types, generated from the OpenAPI document). */
export type { KeyMetadata, Scope, WorkspaceRules } from './client/index.ts';
export {
  type ConsentDecidedDetail,
  SvcMcpConsent,
  type SvcMcpConsentEventMap,
} from './component/consent/svc-mcp-consent.ts';
export {
  type KeyCreatedDetail,
  type KeyRevokedDetail,
  type KeyRotatedDetail,
  type ReauthenticateDetail,
  SvcMcpApiKeys,
  type SvcMcpApiKeysEventMap,
  type SvcMcpWorkspaceKeysEventMap,
  type Workspace,
} from './component/svc-mcp-api-keys.ts';
export { SvcMcpWorkspaceKeys } from './component/workspace-keys/svc-mcp-workspace-keys.ts';

// The package's rolled-up elements.d.ts carries this block as it is (packages/mcp-api-keys/build.ts).
declare global {
  interface HTMLElementTagNameMap {
    'svc-mcp-api-keys': SvcMcpApiKeys;
    'svc-mcp-workspace-keys': SvcMcpWorkspaceKeys;
    'svc-mcp-consent': SvcMcpConsent;
  }
  // The events bubble and cross the shadow root: typed on any element they reach.
  interface HTMLElementEventMap extends SvcMcpApiKeysEventMap, SvcMcpConsentEventMap {}
}
