import type { KeyMetadata } from '../../client/index.ts';
import type { ReauthenticateDetail } from './reauth.ts';

/** Detail of `svc-mcp-key-created`: the new key's metadata (never the key itself). */
export interface KeyCreatedDetail {
  metadata: KeyMetadata;
}

/** Detail of `svc-mcp-key-rotated`: the new key's metadata and the old key's, now revoked. */
export interface KeyRotatedDetail {
  metadata: KeyMetadata;
  revoked: KeyMetadata;
}

/** Detail of `svc-mcp-key-revoked`: the revoked key's metadata. */
export interface KeyRevokedDetail {
  metadata: KeyMetadata;
}

/**
 * The events `<svc-mcp-workspace-keys>` dispatches. Each bubbles out of the shadow root;
 * `svc-mcp-reauthenticate` is cancelable (`preventDefault()`: "this page signs the user in again").
 */
export interface SvcMcpWorkspaceKeysEventMap {
  'svc-mcp-reauthenticate': CustomEvent<ReauthenticateDetail>;
}

/** The events `<svc-mcp-api-keys>` dispatches; all bubble out of the shadow root. */
export interface SvcMcpApiKeysEventMap extends SvcMcpWorkspaceKeysEventMap {
  'svc-mcp-key-created': CustomEvent<KeyCreatedDetail>;
  'svc-mcp-key-rotated': CustomEvent<KeyRotatedDetail>;
  'svc-mcp-key-revoked': CustomEvent<KeyRevokedDetail>;
}

/** Detail of `svc-mcp-consent-decided`: what the person decided and where the browser goes next. */
export interface ConsentDecidedDetail {
  /** What the person answered. */
  decision: 'approved' | 'denied';
  /**
   * The app's redirect URI with the answer (`code`, `state` and `iss` when approved;
   * `error=access_denied` when denied). It carries a single-use code: navigate to it, never log it.
   */
  redirect_to: string;
}

/**
 * The events `<svc-mcp-consent>` dispatches; both bubble out of the shadow root and are
 * cancelable. `svc-mcp-consent-decided`'s default is `location.assign(redirect_to)`:
 * `preventDefault()` to navigate some other way (or to watch the decision in a test).
 */
export interface SvcMcpConsentEventMap extends SvcMcpWorkspaceKeysEventMap {
  'svc-mcp-consent-decided': CustomEvent<ConsentDecidedDetail>;
}

/** Every event of every element, as `emit` types them. */
export type SvcMcpEventMap = SvcMcpApiKeysEventMap & SvcMcpConsentEventMap;
