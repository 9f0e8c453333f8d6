import type { OAuthClient } from '#lib/oauth/clients';
import type { OAuthDeps } from '#lib/oauth/deps';
import { buildRuntime } from '#lib/runtime';
import type { TestTables } from './dynamo.ts';

/**
 * The authorization server's use cases over a test file's tables, with OAuth on for `resources`
 * and `clients` standing in for the metadata fetch and the registrations (the flow's tests drive
 * the use cases directly; over HTTP they run in test/e2e/oauth.test.ts).
 */
export function oauthOver(
  tables: TestTables,
  resources: string[],
  clients: readonly OAuthClient[],
): OAuthDeps {
  const runtime = buildRuntime(
    {
      ...tables.config(),
      oauth: {
        issuer: 'https://keys.example.com',
        consentPageUrl: 'https://dashboard.example.com/consent',
        resources,
      },
    },
    { doc: tables.doc },
  );
  return {
    ...(runtime.oauth as OAuthDeps),
    clients: async (id) => {
      const client = clients.find((c) => c.client_id === id);
      return client ? { ok: true, client } : { ok: false, error_description: 'unknown' };
    },
  };
}
