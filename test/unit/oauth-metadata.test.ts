import { describe, expect, it } from 'vitest';
import { SCOPES } from '#lib/access/scopes';
import {
  authorizationServerMetadata,
  protectedResourceDocument,
  protectedResourceMetadataUrl,
  resourceForMetadataPath,
} from '#lib/oauth/metadata';
import { unionOfGrants } from '#lib/routes/oauth/index';

/**
 * What the authorization server and its MCP servers say of themselves (RFC 8414, RFC 9728), as a
 * client reads it, and the OAuth function's role as the union of its routes' grants.
 */

const settings = {
  issuer: 'https://auth.example.com',
  consentPageUrl: 'https://dashboard.example.com/consent',
  resources: ['https://mcp.example.com/mcp'],
};

describe('the authorization server metadata', () => {
  it('names every endpoint under the issuer and what this server supports', () => {
    expect(authorizationServerMetadata(settings)).toEqual({
      issuer: 'https://auth.example.com',
      authorization_endpoint: 'https://auth.example.com/oauth/authorize',
      token_endpoint: 'https://auth.example.com/oauth/token',
      registration_endpoint: 'https://auth.example.com/oauth/register',
      revocation_endpoint: 'https://auth.example.com/oauth/revoke',
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [...SCOPES],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('keeps an issuer’s path, with or without its last slash', () => {
    for (const issuer of ['https://auth.example.com/tenant', 'https://auth.example.com/tenant/']) {
      const metadata = authorizationServerMetadata({ ...settings, issuer });
      expect(metadata.issuer).toBe(issuer);
      expect(metadata.token_endpoint).toBe('https://auth.example.com/tenant/oauth/token');
      expect(metadata.authorization_endpoint).toBe('https://auth.example.com/tenant/oauth/authorize');
    }
  });

  it('says whether a client may name itself by a metadata document', () => {
    const flag = (clientMetadataDocuments?: boolean) =>
      authorizationServerMetadata({
        ...settings,
        ...(clientMetadataDocuments !== undefined && { clientMetadataDocuments }),
      }).client_id_metadata_document_supported;
    expect(flag()).toBe(true);
    expect(flag(true)).toBe(true);
    expect(flag(false)).toBe(false);
  });
});

describe('an MCP server’s Protected Resource Metadata', () => {
  it('names the resource, this authorization server, the scopes and the header', () => {
    expect(protectedResourceDocument('https://mcp.example.com/mcp', 'https://auth.example.com')).toEqual({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://auth.example.com'],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ['header'],
    });
  });

  it('is at the well-known prefix inserted before the resource’s path (RFC 9728 §3.1)', () => {
    expect(protectedResourceMetadataUrl('https://mcp.example.com/mcp')).toBe(
      'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
    );
    expect(protectedResourceMetadataUrl('https://mcp.example.com')).toBe(
      'https://mcp.example.com/.well-known/oauth-protected-resource',
    );
    expect(protectedResourceMetadataUrl('https://mcp.example.com:8443/a/b')).toBe(
      'https://mcp.example.com:8443/.well-known/oauth-protected-resource/a/b',
    );
  });

  it('is found by its path: the first resource at the bare prefix, else the one whose path follows it', () => {
    const resources = ['https://mcp.example.com/mcp', 'https://mcp.example.com/other'];
    expect(resourceForMetadataPath(resources, '/.well-known/oauth-protected-resource')).toBe(resources[0]);
    expect(resourceForMetadataPath(resources, '/.well-known/oauth-protected-resource/other')).toBe(
      resources[1],
    );
    expect(resourceForMetadataPath(resources, '/.well-known/oauth-protected-resource/mcp')).toBe(
      resources[0],
    );
    expect(resourceForMetadataPath(resources, '/.well-known/oauth-protected-resource/nope')).toBeUndefined();
    expect(resourceForMetadataPath([], '/.well-known/oauth-protected-resource')).toBeUndefined();
  });
});

describe('the union of routes’ grants', () => {
  it('gives each target every action any route needs on it, one statement per set of actions', () => {
    expect(
      unionOfGrants([
        { pepper: false, dynamodb: [{ actions: ['dynamodb:PutItem', 'dynamodb:GetItem'], on: ['keys'] }] },
        {
          pepper: false,
          dynamodb: [
            { actions: ['dynamodb:GetItem'], on: ['keys', 'memberships'] },
            { actions: ['dynamodb:Query'], on: ['keys-by-user'] },
          ],
        },
        {
          pepper: false,
          dynamodb: [{ actions: ['dynamodb:Query', 'dynamodb:Query'], on: ['keys-by-user'] }],
        },
      ]),
    ).toEqual({
      pepper: false,
      dynamodb: [
        { actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], on: ['keys'] },
        { actions: ['dynamodb:GetItem'], on: ['memberships'] },
        { actions: ['dynamodb:Query'], on: ['keys-by-user'] },
      ],
    });
  });

  it('joins targets that need the same actions, and derives the pepper when any route does', () => {
    expect(
      unionOfGrants([
        { pepper: false, dynamodb: [{ actions: ['dynamodb:GetItem'], on: ['keys'] }] },
        { pepper: true, dynamodb: [{ actions: ['dynamodb:GetItem'], on: ['memberships'] }] },
      ]),
    ).toEqual({ pepper: true, dynamodb: [{ actions: ['dynamodb:GetItem'], on: ['keys', 'memberships'] }] });
    expect(unionOfGrants([])).toEqual({ pepper: false, dynamodb: [] });
  });
});
