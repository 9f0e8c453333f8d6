import { describe, expect, it } from 'vitest';
import { parseConfig } from '#lib/config';
import type { ClientResolver } from '#lib/oauth/deps';
import { authorizationServerMetadata } from '#lib/oauth/metadata';
import type { RegisteredClient } from '#lib/oauth/model';
import type { OAuthStore } from '#lib/oauth/port';
import { clientResolver } from '#lib/oauth/registration';

/**
 * A deployment whose functions cannot reach the internet turns client metadata documents off
 * (`OAUTH_CLIENT_METADATA_DOCUMENTS=0`, the `oauthClientMetadataDocuments` setting): the metadata
 * says so, so that clients register by DCR, and a document URL presented anyway is refused without
 * a fetch.
 */

const SETTINGS = {
  issuer: 'https://auth.example.com',
  consentPageUrl: 'https://app.example.com/consent',
  resources: ['https://mcp.example.com/mcp'],
};
const DOCUMENT = 'https://app.example.com/oauth/client.json';
const NOW = new Date('2026-11-26T12:00:00Z');
const REGISTERED: RegisteredClient = {
  client_id: '7e481aa9-3c12-4ab8-ab20-c421549e3e59',
  client_name: 'Codex',
  redirect_uris: ['http://127.0.0.1/callback'],
  created_at: NOW.toISOString(),
};

/** A resolver over one registration, counting the metadata documents it fetched. */
function resolver(metadataDocuments: boolean | undefined) {
  const fetched: string[] = [];
  const fetchDocument: ClientResolver = async (clientId) => {
    fetched.push(clientId);
    return {
      ok: true,
      client: {
        client_id: clientId,
        client_name: 'Document client',
        redirect_uris: ['https://app.example.com/callback'],
        verified_domain: 'app.example.com',
        registration: 'metadata_document',
      },
    };
  };
  const store = {
    getClient: async (id: string) => (id === REGISTERED.client_id ? REGISTERED : undefined),
  } as Pick<OAuthStore, 'getClient'> as OAuthStore;
  const resolve = clientResolver({ store, now: () => NOW }, fetchDocument, { metadataDocuments });
  return { resolve, fetched };
}

describe('client metadata documents, on and off', () => {
  it('are advertised by default and not when turned off', () => {
    expect(authorizationServerMetadata(SETTINGS).client_id_metadata_document_supported).toBe(true);
    expect(
      authorizationServerMetadata({ ...SETTINGS, clientMetadataDocuments: true })
        .client_id_metadata_document_supported,
    ).toBe(true);
    expect(
      authorizationServerMetadata({ ...SETTINGS, clientMetadataDocuments: false })
        .client_id_metadata_document_supported,
    ).toBe(false);
  });

  it('off: a document URL is refused with a sentence saying to register, and nothing is fetched', async () => {
    const { resolve, fetched } = resolver(false);
    const result = await resolve(DOCUMENT);
    expect(result).toEqual({
      ok: false,
      error_description: expect.stringMatching(/does not accept .*metadata document.*register/),
    });
    expect(fetched).toEqual([]);
  });

  it('off: a registered client still resolves', async () => {
    const { resolve } = resolver(false);
    expect(await resolve(REGISTERED.client_id)).toMatchObject({
      ok: true,
      client: { client_id: REGISTERED.client_id, client_name: 'Codex', verified_domain: null },
    });
  });

  it('on (the default): a document URL is fetched', async () => {
    for (const setting of [undefined, true]) {
      const { resolve, fetched } = resolver(setting);
      expect(await resolve(DOCUMENT)).toMatchObject({
        ok: true,
        client: { verified_domain: 'app.example.com' },
      });
      expect(fetched).toEqual([DOCUMENT]);
    }
  });

  it('the environment: `OAUTH_CLIENT_METADATA_DOCUMENTS=0` turns them off, anything else but `1` is refused', () => {
    const env = {
      KEYS_TABLE_NAME: 'keys',
      MEMBERSHIPS_TABLE_NAME: 'memberships',
      PEPPER_KMS_KEY_ID: 'alias/pepper',
      AWS_REGION: 'us-east-1',
      OAUTH_ISSUER: SETTINGS.issuer,
      OAUTH_CONSENT_PAGE_URL: SETTINGS.consentPageUrl,
      OAUTH_RESOURCES: SETTINGS.resources.join(','),
    };
    expect(parseConfig(env).oauth?.clientMetadataDocuments).toBe(true);
    expect(parseConfig({ ...env, OAUTH_CLIENT_METADATA_DOCUMENTS: '1' }).oauth?.clientMetadataDocuments).toBe(
      true,
    );
    expect(parseConfig({ ...env, OAUTH_CLIENT_METADATA_DOCUMENTS: '0' }).oauth?.clientMetadataDocuments).toBe(
      false,
    );
    expect(() => parseConfig({ ...env, OAUTH_CLIENT_METADATA_DOCUMENTS: 'off' })).toThrow(
      /OAUTH_CLIENT_METADATA_DOCUMENTS/,
    );
  });
});
