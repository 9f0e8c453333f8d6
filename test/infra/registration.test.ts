import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { describe, expect, it } from 'vitest';
import { buildApp } from '#infra/build-app';
import { McpKeyAuthorizer } from '#infra/constructs/mcp-key-authorizer';
import { parseSettings } from '#infra/settings';
import { registrationRefusal } from '#lib/mcp/registration';

const SETTINGS = { jwtIssuer: 'https://login.example.com/', jwtAudience: 'svc-dashboard' };
const SKIP_BUNDLING = { 'aws:cdk:bundling-stacks': [] };
const KEYS_PAGE = 'https://dashboard.example.com/settings/mcp-keys';

/** The POST /register methods of a template, with the path part of their resource. */
function registrationMethods(template: Template) {
  const resources = template.findResources('AWS::ApiGateway::Resource');
  const methods = Object.values(template.findResources('AWS::ApiGateway::Method')).filter((m) => {
    const ref = (m.Properties.ResourceId as { Ref?: string }).Ref ?? '';
    return resources[ref]?.Properties.PathPart === 'register';
  });
  return methods.map((m) => m.Properties);
}

describe('the OAuth registration fallback on a REST API (contract §7)', () => {
  it('is answered by a mock: 400 invalid_client_metadata naming the key page, with no authorizer', () => {
    const stack = new Stack(new App({ context: SKIP_BUNDLING }), 'Consumer');
    const keys = McpKeyAuthorizer.fromParameter(stack, 'McpKeys');
    const api = new RestApi(stack, 'Api');
    api.root.addResource('mcp').addMethod('POST', new MockIntegration(), {
      authorizer: keys.attachToRestApi(api, { keysPageUrl: KEYS_PAGE }),
    });
    const [method, ...more] = registrationMethods(Template.fromStack(stack));
    expect(more).toHaveLength(0);
    expect(method?.HttpMethod).toBe('POST');
    expect(method?.AuthorizationType).toBe('NONE');
    expect(method?.Integration.Type).toBe('MOCK');
    const [response] = method?.Integration.IntegrationResponses ?? [];
    expect(response.StatusCode).toBe('400');
    const body = JSON.parse(response.ResponseTemplates['application/json']);
    expect(body).toEqual(JSON.parse(registrationRefusal(KEYS_PAGE).body));
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toContain(`create or rotate one at ${KEYS_PAGE}.`);
  }, 120_000);

  it('is not added unless asked for, and refuses a key page URL the body template cannot hold', () => {
    const stack = new Stack(new App({ context: SKIP_BUNDLING }), 'Consumer');
    const keys = McpKeyAuthorizer.fromParameter(stack, 'McpKeys');
    const api = new RestApi(stack, 'Api');
    api.root
      .addResource('mcp')
      .addMethod('POST', new MockIntegration(), { authorizer: keys.attachToRestApi(api) });
    expect(registrationMethods(Template.fromStack(stack))).toHaveLength(0);
    const other = new RestApi(stack, 'Other');
    expect(() => keys.attachToRestApi(other, { keysPageUrl: 'https://x.example.com/#keys' })).toThrow(
      /\$ or #/,
    );
  }, 120_000);

  it('follows the keysPageUrl setting on the reference endpoint (https only), and cdk-nag passes with it', () => {
    expect(() => parseSettings({ ...SETTINGS, keysPageUrl: 'http://insecure.example.com/' })).toThrow(
      /keysPageUrl must be an https URL/,
    );
    const withPage = buildApp({ context: SKIP_BUNDLING, settings: { ...SETTINGS, keysPageUrl: KEYS_PAGE } });
    const [method] = registrationMethods(Template.fromStack(withPage.stateless));
    expect(method?.Integration.IntegrationResponses[0].ResponseTemplates['application/json']).toContain(
      KEYS_PAGE,
    );
    expect(() => withPage.app.synth()).not.toThrow();
  }, 120_000);
});
