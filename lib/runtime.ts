import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Config, parseConfig } from './config.ts';
import type { ExpiryStore } from './events/port.ts';
import { IdentityKeySets } from './identity/key-sets.ts';
import { CursorCodec } from './keys/cursor.ts';
import type { KeyServiceDeps } from './keys/lifecycle.ts';
import type { VerifyResult } from './keys/verify.ts';
import { createClientMetadataFetcher } from './oauth/client-metadata.ts';
import type { OAuthDeps } from './oauth/deps.ts';
import { publicJsonFetch } from './oauth/public-json.ts';
import { clientResolver } from './oauth/registration.ts';
import { DynamoEnterpriseStore } from './store/enterprise-store.ts';
import { DynamoExpiryStore } from './store/expiry-store.ts';
import { DynamoKeyStore } from './store/keys-store.ts';
import { DynamoMemberships } from './store/memberships-store.ts';
import { DynamoOAuthStore } from './store/oauth-store.ts';
import { DynamoUsageReader } from './store/usage-reads.ts';
import { DynamoWorkspaceStore } from './store/workspace-store.ts';
import type { McpCall } from './usage/model.ts';
import {
  buildVerifierRuntime,
  documentClientOf,
  pepperSourceOf,
  type VerifierOverrides,
} from './verifier-runtime.ts';
import type { GovernanceDeps } from './workspaces/admin.ts';

/**
 * The wired service: one client and one pepper cache per process. It hands out the domain's
 * ports (`KeyStore`, `WorkspaceStore`, `ExpiryStore`, ...), never the DynamoDB adapters or the
 * client behind them: what must reach the table directly builds its own client and passes it in
 * (`RuntimeOverrides.doc`).
 */
export interface Runtime {
  config: Config;
  service: KeyServiceDeps;
  /** Workspace governance (contract §12): the key service plus the workspace side of the table. */
  governance: GovernanceDeps;
  /** The expiry sweep's store, on the same table and client. */
  expiry: ExpiryStore;
  /** The key verifier on the same client and pepper; a failing DynamoDB or KMS call throws. */
  verify: (rawKey: unknown, call?: McpCall) => Promise<VerifyResult>;
  /** The OAuth authorization server (contract §15); undefined when OAuth is off. */
  oauth: OAuthDeps | undefined;
  /**
   * Stops the usage timer and writes every usage count still waiting, after the writes under way
   * (contract §18): an instance that ends (SIGTERM on Lambda, local mode's close). Never rejects.
   */
  endUsage(): Promise<void>;
}

/** What a test or local mode sets instead of the configuration's (the verifier's as well). */
export interface RuntimeOverrides extends VerifierOverrides {
  /** The DynamoDB client every store uses. @default one built from the configuration */
  doc?: DynamoDBDocumentClient;
}

/**
 * Wires the service from its configuration. What only some functions use (the KMS client, the
 * verifier and its cache, the expiry store) is built on first use, so each function builds only
 * what it uses.
 */
export function buildRuntime(config: Config, overrides: RuntimeOverrides = {}): Runtime {
  const doc = overrides.doc ?? documentClientOf(config);
  const peppers = pepperSourceOf(config, overrides.kms);
  const keys = new DynamoKeyStore(doc, config.keysTableName, config.settings.retentionDays);
  const memberships = new DynamoMemberships(doc, config.membershipsTableName);
  const now = overrides.now ?? (() => new Date());
  let expiry: ExpiryStore | undefined;
  let oauth: OAuthDeps | undefined;
  const verifier = buildVerifierRuntime(config, overrides, { doc, peppers, keys });
  const workspaces = new DynamoWorkspaceStore(doc, config.keysTableName, config.settings.retentionDays);
  const service: KeyServiceDeps = {
    keys,
    policies: workspaces,
    memberships,
    peppers,
    cursors: new CursorCodec(peppers),
    usage: new DynamoUsageReader(doc, config.keysTableName),
    settings: config.settings,
    tools: config.mcpTools,
    now,
  };
  return {
    config,
    service,
    governance: { ...service, workspaces },
    get expiry() {
      expiry ??= new DynamoExpiryStore(doc, config.keysTableName, config.settings.retentionDays);
      return expiry;
    },
    get verify() {
      return verifier.verify;
    },
    endUsage: () => verifier.endUsage(),
    get oauth() {
      if (config.oauth) oauth ??= oauthDeps(config, config.oauth, service, { doc, keys, memberships });
      return oauth;
    },
  };
}

/** The authorization server's ports on the key service's (contract §15), the ID-JAG exchange's with a trusted IdP (§17). */
function oauthDeps(
  config: Config,
  settings: NonNullable<Config['oauth']>,
  service: KeyServiceDeps,
  {
    doc,
    keys,
    memberships,
  }: { doc: DynamoDBDocumentClient; keys: DynamoKeyStore; memberships: DynamoMemberships },
): OAuthDeps {
  const store = new DynamoOAuthStore(doc, config.keysTableName, keys);
  const allowLoopbackHttp = settings.loopbackMetadataDocuments === true;
  const now = service.now;
  const fetchDocument = createClientMetadataFetcher({ now, allowLoopbackHttp });
  return {
    ...service,
    store,
    oauth: settings,
    clients: clientResolver({ store, now }, fetchDocument, {
      allowLoopbackHttp,
      metadataDocuments: settings.clientMetadataDocuments,
    }),
    ...((settings.identityProviders?.length ?? 0) > 0 && {
      enterprise: {
        keySets: new IdentityKeySets(publicJsonFetch({ allowLoopbackHttp }), () => now().getTime()),
        store: new DynamoEnterpriseStore(doc, config.keysTableName, keys, config.settings.retentionDays),
        memberships,
      },
    }),
  };
}

let shared: Runtime | undefined;

/** The process-wide runtime from the environment; throws at cold start on bad configuration. */
export function getRuntime(): Runtime {
  shared ??= buildRuntime(parseConfig());
  return shared;
}
