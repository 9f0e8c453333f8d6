/**
 * `@svc/mcp-api-keys/elements/react`: the elements entry (importing it defines the elements) with
 * JSX types for React 19, which passes a prop the element has as a property (`getToken`,
 * `workspaces`, `baseUrl`, `requestId`…), any other as an attribute (`base-url`…), and listens to
 * an event with `on<event type>` (`onsvc-mcp-reauthenticate`, `onsvc-mcp-consent-decided`). Written by hand: it needs `@types/react`,
 * which the other entries do not. Copied to dist/ by build.ts; type-checked by the React
 * consumer test (test/package/fixtures/react-dashboard).
 */
import type { ClassAttributes, HTMLAttributes } from 'react';
import type {
  SvcMcpApiKeys,
  SvcMcpApiKeysEventMap,
  SvcMcpConsent,
  SvcMcpConsentEventMap,
  SvcMcpWorkspaceKeys,
  SvcMcpWorkspaceKeysEventMap,
} from './elements.js';

export * from './elements.js';

/** `on<event type>` props: React 19 adds each as a listener of that event on the element. */
export type EventProps<Events> = {
  [K in keyof Events as `on${K & string}`]?: (event: Events[K]) => void;
};

/** A custom element's JSX props: React's own, the element's properties, its attributes and events. */
export type ElementProps<E, Properties extends keyof E, Attributes, Events> = ClassAttributes<E> &
  HTMLAttributes<E> &
  Partial<Pick<E, Properties>> &
  Partial<Attributes> &
  EventProps<Events>;

export type SvcMcpApiKeysProps = ElementProps<
  SvcMcpApiKeys,
  'baseUrl' | 'mcpUrl' | 'maxExpiryDays' | 'defaultExpiryDays' | 'getToken' | 'workspaces',
  {
    'base-url': string;
    'mcp-url': string;
    'max-expiry-days': number | string;
    'default-expiry-days': number | string;
  },
  SvcMcpApiKeysEventMap
>;

export type SvcMcpWorkspaceKeysProps = ElementProps<
  SvcMcpWorkspaceKeys,
  'workspaceId' | 'workspaceName' | 'baseUrl' | 'getToken',
  { 'workspace-id': string; 'workspace-name': string; 'base-url': string },
  SvcMcpWorkspaceKeysEventMap
>;

export type SvcMcpConsentProps = ElementProps<
  SvcMcpConsent,
  'requestId' | 'baseUrl' | 'maxExpiryDays' | 'defaultExpiryDays' | 'getToken' | 'workspaces',
  {
    'request-id': string;
    'base-url': string;
    'max-expiry-days': number | string;
    'default-expiry-days': number | string;
  },
  SvcMcpConsentEventMap
>;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'svc-mcp-api-keys': SvcMcpApiKeysProps;
      'svc-mcp-workspace-keys': SvcMcpWorkspaceKeysProps;
      'svc-mcp-consent': SvcMcpConsentProps;
    }
  }
}
