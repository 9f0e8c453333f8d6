import type { KeyMetadata } from '../../client/index.ts';

/** Detail of `svc-mcp-reauthenticate`: call `resume()` once the user has signed in again. */
export interface ReauthenticateDetail {
  /** `reauthentication_required`: the login is too old for the action; `unauthorized`: the session has ended. */
  reason: 'reauthentication_required' | 'unauthorized';
  /** Seconds: how recent the login must be (RFC 9470 `max_age`), when the API said. */
  maxAge: number | undefined;
  /** Retries the action once the user has signed in again (with a fresh `getToken()`). */
  resume: () => void;
  /** Gives up: the action fails with its error, shown in the element. */
  cancel: () => void;
}

/** Detail of `svc-mcp-key-created`: the new key's metadata (never the key itself). */
export interface KeyCreatedDetail {
  /** The new key's metadata. */
  metadata: KeyMetadata;
}

/** Detail of `svc-mcp-key-rotated`: the new key's metadata and the old key's, now revoked. */
export interface KeyRotatedDetail {
  /** The replacement key's metadata. */
  metadata: KeyMetadata;
  /** The rotated key's metadata, now revoked. */
  revoked: KeyMetadata;
}

/** Detail of `svc-mcp-key-revoked`: the revoked key's metadata. */
export interface KeyRevokedDetail {
  /** The revoked key's metadata. */
  metadata: KeyMetadata;
}

/**
 * The events `<svc-mcp-workspace-keys>` dispatches. Each bubbles out of the shadow root;
 * `svc-mcp-reauthenticate` is cancelable (`preventDefault()`: "this page signs the user in again").
 */
export interface SvcMcpWorkspaceKeysEventMap {
  /** An action needs the user to sign in again; cancelable: `preventDefault()`, sign in, then `resume()`. */
  'svc-mcp-reauthenticate': CustomEvent<ReauthenticateDetail>;
}

/** The events `<svc-mcp-api-keys>` dispatches; all bubble out of the shadow root. */
export interface SvcMcpApiKeysEventMap extends SvcMcpWorkspaceKeysEventMap {
  /** A key was created (its value was shown once, in the element only). */
  'svc-mcp-key-created': CustomEvent<KeyCreatedDetail>;
  /** A key was rotated: revoked, and its replacement created. */
  'svc-mcp-key-rotated': CustomEvent<KeyRotatedDetail>;
  /** A key or an app's grant was revoked. */
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
  /** The person approved or denied the request; cancelable (the default navigates to `redirect_to`). */
  'svc-mcp-consent-decided': CustomEvent<ConsentDecidedDetail>;
}

/** Every event of every element, as `emit` types them. */
export type SvcMcpEventMap = SvcMcpApiKeysEventMap & SvcMcpConsentEventMap;
