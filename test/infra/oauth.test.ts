import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { OAUTH_ROUTES, oauthRouteKey } from '#infra/api-edge';
import { buildApp } from '#infra/build-app';
import { McpKeyAuthorizer } from '#infra/constructs/mcp-key-authorizer';
import { PEPPER_ROLE_PATH } from '#infra/constructs/pepper-key';
import { parseSettings } from '#infra/settings';
import { restGatewayResponses } from '#lib/mcp/gateway-responses';
import { OAUTH_PATHS, OPEN_CORS, protectedResourceDocument } from '#lib/oauth/metadata';
import { MANAGEMENT_ROUTES, REST_STAGE, routeKey, routesOf } from '#lib/routes/index';
import { OAUTH_GRANTS } from '#lib/routes/oauth/index';
import {
  DEFAULT_SYNTH_SETTINGS,
  OAUTH_SETTINGS,
  SKIP_BUNDLING,
  synthesized,
} from '#test/support/synthesized';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON
type Json = any;

// The run's shared synths (test/support/synth-setup.ts): OAuth off, and on (with the operations settings).
const off = await synthesized('defaults');
const on = await synthesized('operations');

const resources = (template: Template, type: string) =>
  Object.entries(template.findResources(type)) as [string, Json][];
const only = (template: Template, type: string, props: Json = {}) => {
  const found = Object.entries(template.findResources(type, { Properties: props }));
  expect(found, type).toHaveLength(1);
  return found[0] as [string, Json];
};

/**
 * A CloudFormation string as text, references written `<Ref:Id>` and `<Id.Attribute>`: what a
 * value will be once deployed, with the deployment's names left as placeholders.
 */
function text(value: Json): string {
  if (typeof value === 'string') return value;
  if (value?.Ref) return `<Ref:${value.Ref}>`;
  if (value?.['Fn::GetAtt']) return `<${value['Fn::GetAtt'].join('.')}>`;
  if (value?.['Fn::Join']) return value['Fn::Join'][1].map(text).join(value['Fn::Join'][0]);
  throw new Error(`not a string: ${JSON.stringify(value)}`);
}

const functionsOf = (template: Template) =>
  resources(template, 'AWS::Lambda::Function').map(([id, f]) => ({
    id,
    env: f.Properties.Environment.Variables as Record<string, Json>,
  }));
const functionNamed = (template: Template, prefix: string) => {
  const found = functionsOf(template).filter((f) => f.id.startsWith(`${prefix}Function`));
  expect(found, prefix).toHaveLength(1);
  return found[0] as { id: string; env: Record<string, Json> };
};

/** The reference endpoint's own URL and the OAuth API's, as the templates write them. */
function urls(template: Template) {
  const [restApi] = only(template, 'AWS::ApiGateway::RestApi');
  const [oauthApi] = only(template, 'AWS::ApiGatewayV2::Api', { Name: 'svc-mcp-api-keys-oauth' });
  const restUrl = (path: string) =>
    `https://<Ref:${restApi}>.execute-api.<Ref:AWS::Region>.<Ref:AWS::URLSuffix>/${REST_STAGE}${path}`;
  return { restApi, oauthApi, restUrl, resource: restUrl('/mcp'), issuer: `<${oauthApi}.ApiEndpoint>` };
}

/** The REST API's methods by `METHOD /path` (the path from the resources' path parts). */
function restMethods(template: Template): Map<string, Json> {
  const parts = template.findResources('AWS::ApiGateway::Resource');
  const pathOf = (ref: Json): string => {
    const r = ref?.Ref ? parts[ref.Ref] : undefined;
    return r ? `${pathOf(r.Properties.ParentId)}/${r.Properties.PathPart}` : '';
  };
  return new Map(
    resources(template, 'AWS::ApiGateway::Method').map(([, m]) => [
      `${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId) || '/'}`,
      m.Properties,
    ]),
  );
}

/** The logical ids of a template's resources that each resource refers to. */
function dependencies(template: Json): Map<string, Set<string>> {
  const ids = new Set(Object.keys(template.Resources));
  const graph = new Map<string, Set<string>>();
  const walk = (v: Json, out: Set<string>) => {
    if (Array.isArray(v)) for (const x of v) walk(x, out);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k === 'Ref' && typeof x === 'string') out.add(x);
        else if (k === 'Fn::GetAtt') out.add(Array.isArray(x) ? x[0] : String(x).split('.')[0]);
        else if (k === 'Fn::Sub')
          for (const m of String(Array.isArray(x) ? x[0] : x).matchAll(/\$\{([A-Za-z0-9]+)/g))
            out.add(m[1] as string);
        else walk(x, out);
      }
  };
  for (const [id, r] of Object.entries(template.Resources as Record<string, Json>)) {
    const out = new Set<string>();
    walk(r.Properties ?? {}, out);
    for (const d of [r.DependsOn ?? []].flat()) out.add(d);
    graph.set(id, new Set([...out].filter((d) => ids.has(d))));
  }
  return graph;
}

/** A cycle of references among a template's resources (CloudFormation refuses to deploy one), if any. */
function cycleOf(template: Json): string[] | undefined {
  const graph = dependencies(template);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (n: string): string[] | undefined => {
    state.set(n, 'open');
    path.push(n);
    for (const d of graph.get(n) ?? []) {
      if (state.get(d) === 'open') return [...path.slice(path.indexOf(d)), d];
      if (!state.has(d)) {
        const found = visit(d);
        if (found) return found;
      }
    }
    path.pop();
    state.set(n, 'done');
    return undefined;
  };
  for (const n of graph.keys()) if (!state.has(n)) return visit(n) ?? undefined;
  return undefined;
}

const CONSENT_ROUTES = MANAGEMENT_ROUTES.filter((m) => m.tag === 'oauth-consent');
const pascal = (s: string) => s.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());

describe('OAuth off (no consentPageUrl): the deployment of turn 3', () => {
  it('has no OAuth API, no consent routes or functions, no metadata, and an authorizer bound to nothing', () => {
    const { stateless } = off;
    expect(resources(stateless, 'AWS::ApiGatewayV2::Api')).toHaveLength(1);
    const routeKeys = resources(stateless, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(routeKeys.filter((k: string) => k.includes('oauth'))).toEqual([]);
    for (const m of CONSENT_ROUTES) expect(routeKeys).not.toContain(routeKey(m));
    for (const { id, env } of functionsOf(stateless)) {
      expect(id).not.toMatch(/^(Oauth|GetOauthRequest|ApproveOauthRequest|DenyOauthRequest)Function/);
      for (const name of ['OAUTH_ISSUER', 'OAUTH_CONSENT_PAGE_URL', 'OAUTH_RESOURCES', 'MCP_RESOURCE'])
        expect(env[name], `${id} ${name}`).toBeUndefined();
    }
    expect([...restMethods(stateless).keys()].some((k) => k.includes('.well-known'))).toBe(false);
    expect(JSON.stringify(stateless.toJSON())).not.toContain('resource_metadata');
    expect(Object.keys(stateless.toJSON().Outputs)).not.toContain('OAuthIssuer');
  });
});

describe('OAuth on: the authorization server', () => {
  it('serves the protocol on an HTTP API of its own: no CORS configuration, no authorizer, every route to the OAuth function', () => {
    const { stateless } = on;
    const { oauthApi } = urls(stateless);
    const [, api] = only(stateless, 'AWS::ApiGatewayV2::Api', { Name: 'svc-mcp-api-keys-oauth' });
    // An HTTP API with CORS answers preflights itself and drops the function's `*` headers.
    expect(api.Properties.CorsConfiguration).toBeUndefined();
    const routes = resources(stateless, 'AWS::ApiGatewayV2::Route')
      .map(([, r]) => r.Properties)
      .filter((r) => r.ApiId.Ref === oauthApi);
    expect(routes.map((r) => r.RouteKey).sort()).toEqual(OAUTH_ROUTES.map(oauthRouteKey).sort());
    const integrations = stateless.findResources('AWS::ApiGatewayV2::Integration');
    const oauthFn = functionNamed(stateless, 'Oauth').id;
    for (const route of routes) {
      expect(route.AuthorizationType, route.RouteKey).toBe('NONE');
      expect(route.AuthorizerId, route.RouteKey).toBeUndefined();
      const integration = integrations[text(route.Target).replace(/^integrations\/<Ref:(.+)>$/, '$1')];
      expect(JSON.stringify(integration?.Properties.IntegrationUri), route.RouteKey).toContain(oauthFn);
    }
    for (const path of [OAUTH_PATHS.asMetadata, OAUTH_PATHS.token, OAUTH_PATHS.register, OAUTH_PATHS.revoke])
      expect(routes.map((r) => r.RouteKey)).toContain(`OPTIONS ${path}`);
  });

  it('throttles registration and token on their own, the rest at the stage’s rate, and logs every request', () => {
    const [, stage] = only(on.stateless, 'AWS::ApiGatewayV2::Stage', {
      ApiId: { Ref: urls(on.stateless).oauthApi },
    });
    expect(stage.Properties).toMatchObject({
      StageName: '$default',
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      RouteSettings: {
        'POST /oauth/register': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
        'POST /oauth/token': { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
      },
    });
    expect(stage.Properties.AccessLogSettings.DestinationArn).toBeDefined();
    const custom = parseSettings({
      ...DEFAULT_SYNTH_SETTINGS,
      ...OAUTH_SETTINGS,
      oauthRegistrationRate: '2',
      oauthTokenBurst: 80,
    });
    expect(custom).toMatchObject({
      oauthRegistrationRate: 2,
      oauthRegistrationBurst: 10,
      oauthTokenBurst: 80,
    });
  });

  it('puts the consent routes on the management API behind the JWT authorizer', () => {
    const { stateless } = on;
    const [mgmt] = only(stateless, 'AWS::ApiGatewayV2::Api', { Name: 'svc-mcp-api-keys' });
    const [jwt] = only(stateless, 'AWS::ApiGatewayV2::Authorizer', { AuthorizerType: 'JWT' });
    const routes = resources(stateless, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    const management = routes.filter((r) => r.ApiId.Ref === mgmt).map((r) => r.RouteKey);
    expect(management.sort()).toEqual(routesOf('http').map(routeKey).sort());
    for (const m of CONSENT_ROUTES) {
      const route = routes.find((r) => r.RouteKey === routeKey(m));
      expect(route, m.name).toMatchObject({ AuthorizationType: 'JWT', AuthorizerId: { Ref: jwt } });
    }
  });

  it('gives the OAuth functions the issuer, the consent page and the resources; binds the key authorizer to the reference endpoint', () => {
    const { stateless } = on;
    const { resource, issuer } = urls(stateless);
    for (const name of ['Oauth', ...CONSENT_ROUTES.map((m) => pascal(m.name))]) {
      const { env } = functionNamed(stateless, name);
      expect(text(env.OAUTH_ISSUER), name).toBe(issuer);
      expect(env.OAUTH_CONSENT_PAGE_URL, name).toBe(OAUTH_SETTINGS.consentPageUrl);
      // The reference endpoint first (the root metadata path's), then the other MCP servers.
      expect(text(env.OAUTH_RESOURCES), name).toBe(`${resource},${OAUTH_SETTINGS.oauthResources}`);
      expect(env.MCP_RESOURCE, name).toBeUndefined();
    }
    expect(text(functionNamed(stateless, 'McpAuthorizer').env.MCP_RESOURCE)).toBe(resource);
    const others = functionsOf(stateless).filter(
      (f) => !/^(Oauth|GetOauthRequest|ApproveOauthRequest|DenyOauthRequest)Function/.test(f.id),
    );
    expect(others.length).toBeGreaterThan(10);
    for (const { id, env } of others) expect(env.OAUTH_ISSUER, id).toBeUndefined();
    stateless.hasOutput('OAuthIssuer', {});
    expect(text(stateless.toJSON().Outputs.OAuthIssuer.Value)).toBe(issuer);
  });

  it('grants the OAuth functions exactly what their grants declare, the pepper under its path', () => {
    const { stateless } = on;
    const roles = Object.fromEntries(
      resources(stateless, 'AWS::IAM::Role').map(([id, r]) => [
        id.replace(/Role[0-9A-F]{8}$/, ''),
        r.Properties.Path,
      ]),
    );
    const policies = resources(stateless, 'AWS::IAM::Policy');
    const actionsOf = (prefix: string) =>
      policies
        .filter(([id]) => id.startsWith(`${prefix}Role`))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement.flatMap((s: Json) => [s.Action].flat()))
        .sort();
    const declared = (grants: typeof OAUTH_GRANTS) =>
      [
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        ...(grants.pepper ? ['kms:GenerateMac'] : []),
        ...grants.dynamodb.flatMap((g) => g.actions),
      ].sort();
    expect(actionsOf('Oauth')).toEqual(declared(OAUTH_GRANTS));
    expect(roles.Oauth).toBe(PEPPER_ROLE_PATH);
    for (const m of CONSENT_ROUTES) {
      expect(actionsOf(pascal(m.name)), m.name).toEqual(declared(m.grants));
      expect(roles[pascal(m.name)], m.name).toBe(m.grants.pepper ? PEPPER_ROLE_PATH : undefined);
    }
  });

  it('alarms on the OAuth API’s 5xx rate and the OAuth functions’ throttles, each with its runbook entry', () => {
    const runbook = readFileSync(join(process.cwd(), 'docs/operations.md'), 'utf8');
    const alarms = resources(on.stateless, 'AWS::CloudWatch::Alarm');
    for (const name of ['OAuthApi5xxRate', 'OAuthThrottles']) {
      const found = alarms.find(([id]) => id.startsWith(`Alarms${name}`));
      expect(found, name).toBeDefined();
      expect(found?.[1].Properties.AlarmDescription).toContain(
        `Runbook: docs/operations.md#${name.toLowerCase()}`,
      );
      expect(runbook).toContain(`### ${name}\n`);
    }
    const throttles = alarms.find(([id]) => id.startsWith('AlarmsOAuthThrottles'))?.[1];
    const metrics = JSON.stringify(throttles?.Properties.Metrics);
    for (const name of ['Oauth', ...CONSENT_ROUTES.map((m) => pascal(m.name))])
      expect(metrics).toContain(name);
    // A metric math alarm takes at most 10 metrics (CloudWatch refuses more at deployment).
    for (const [id, alarm] of alarms) {
      const count = (alarm.Properties.Metrics ?? []).filter((m: Json) => m.MetricStat).length;
      expect(count, id).toBeLessThanOrEqual(10);
    }
  });

  it('passes cdk-nag and the Control Tower guard rules, each exception acknowledged', () => {
    const reports = on.validationReport.pluginReports;
    expect(reports.map((r) => r.conclusion)).not.toContain('failure');
    for (const r of reports) expect(r.violations, r.pluginName).toEqual([]);
  });
});

describe('OAuth on: the reference MCP endpoint as a protected resource', () => {
  it('names its metadata in every 401, with the scope to ask for; the other responses stay', () => {
    const { stateless } = on;
    const { restUrl } = urls(stateless);
    const metadataUrl = restUrl('/.well-known/oauth-protected-resource/mcp');
    const expected = restGatewayResponses({ resourceMetadataUrl: metadataUrl });
    const byType = Object.fromEntries(
      resources(stateless, 'AWS::ApiGateway::GatewayResponse').map(([, r]) => [
        r.Properties.ResponseType,
        r.Properties,
      ]),
    );
    expect(Object.keys(byType).sort()).toEqual(Object.keys(expected).sort());
    for (const [type, answer] of Object.entries(expected)) {
      const { 'content-type': _json, ...headers } = answer.headers;
      const deployed = byType[type];
      expect(deployed.StatusCode, type).toBe(String(answer.status));
      expect(
        Object.fromEntries(Object.entries(deployed.ResponseParameters).map(([k, v]) => [k, text(v)])),
        type,
      ).toEqual(
        Object.fromEntries(
          Object.entries(headers).map(([k, v]) => [`gatewayresponse.header.${k}`, `'${v}'`]),
        ),
      );
    }
    expect(text(byType.UNAUTHORIZED.ResponseParameters['gatewayresponse.header.www-authenticate'])).toContain(
      `resource_metadata="${metadataUrl}", scope="svc.forms.read"`,
    );
  });

  it('serves its Protected Resource Metadata as a static document at both RFC 9728 paths, to any origin', () => {
    const { stateless } = on;
    const { resource, issuer } = urls(stateless);
    const methods = restMethods(stateless);
    for (const path of [`${OAUTH_PATHS.resourceMetadata}/mcp`, OAUTH_PATHS.resourceMetadata]) {
      const get = methods.get(`GET ${path}`);
      expect(get, path).toBeDefined();
      expect(get.AuthorizationType).toBe('NONE');
      expect(get.Integration.Type).toBe('MOCK');
      const [response] = get.Integration.IntegrationResponses;
      expect(response.StatusCode).toBe('200');
      expect(JSON.parse(text(response.ResponseTemplates['application/json']))).toEqual(
        protectedResourceDocument(resource, issuer),
      );
      expect(response.ResponseParameters).toMatchObject(
        Object.fromEntries(
          Object.entries(OPEN_CORS).map(([k, v]) => [`method.response.header.${k}`, `'${v}'`]),
        ),
      );
      const preflight = methods.get(`OPTIONS ${path}`);
      expect(preflight?.Integration.IntegrationResponses[0].StatusCode, path).toBe('204');
    }
    // The MCP methods keep the key authorizer.
    for (const route of routesOf('rest'))
      expect(methods.get(routeKey(route))?.AuthorizationType).toBe('CUSTOM');
  });

  it('sends the registration fallback (POST /register) to the authorization server, not to the key page', () => {
    const { stateless } = on;
    const register = restMethods(stateless).get('POST /register');
    expect(register?.AuthorizationType).toBe('NONE');
    expect(register?.Integration).toMatchObject({ Type: 'HTTP_PROXY', IntegrationHttpMethod: 'POST' });
    expect(text(register?.Integration.Uri)).toBe(`${urls(stateless).issuer}${OAUTH_PATHS.register}`);
  });
});

describe('no CloudFormation cycle', () => {
  it('in either app: the APIs’ URLs reach the functions without a reference back to a stage', () => {
    for (const app of [off, on])
      for (const template of [app.stateful, app.stateless])
        expect(cycleOf(template.toJSON())).toBeUndefined();
    // The check can fail: a function named by the stage whose deployment waits on its method.
    const cyclic = {
      Resources: {
        Fn: { Properties: { Environment: { Url: { 'Fn::Join': ['', ['https://', { Ref: 'Stage' }]] } } } },
        Method: { Properties: { Uri: { 'Fn::GetAtt': ['Fn', 'Arn'] } } },
        Deployment: { DependsOn: ['Method'], Properties: {} },
        Stage: { Properties: { DeploymentId: { Ref: 'Deployment' } } },
      },
    };
    expect(cycleOf(cyclic)).toEqual(['Fn', 'Stage', 'Deployment', 'Method', 'Fn']);
  });
});

describe('OAuth on custom domains', () => {
  it('uses the issuer and the endpoint URL the settings name: RFC 9728’s URL in the 401, the literal document', () => {
    const built = buildApp({
      checks: false,
      context: SKIP_BUNDLING,
      settings: {
        ...DEFAULT_SYNTH_SETTINGS,
        consentPageUrl: 'https://dash.example.com/consent',
        oauthIssuer: 'https://auth.example.com/',
        mcpEndpointUrl: 'https://MCP.example.com/mcp',
      },
    });
    const template = Template.fromStack(built.stateless);
    expect(functionNamed(template, 'Oauth').env).toMatchObject({
      OAUTH_ISSUER: 'https://auth.example.com',
      OAUTH_RESOURCES: 'https://mcp.example.com/mcp',
    });
    expect(functionNamed(template, 'McpAuthorizer').env.MCP_RESOURCE).toBe('https://mcp.example.com/mcp');
    const unauthorized = resources(template, 'AWS::ApiGateway::GatewayResponse').find(
      ([, r]) => r.Properties.ResponseType === 'UNAUTHORIZED',
    )?.[1];
    expect(unauthorized.Properties.ResponseParameters['gatewayresponse.header.www-authenticate']).toContain(
      'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    const get = restMethods(template).get('GET /.well-known/oauth-protected-resource/mcp');
    expect(JSON.parse(get.Integration.IntegrationResponses[0].ResponseTemplates['application/json'])).toEqual(
      protectedResourceDocument('https://mcp.example.com/mcp', 'https://auth.example.com'),
    );
    expect(restMethods(template).get('POST /register')?.Integration.Uri).toBe(
      'https://auth.example.com/oauth/register',
    );
  });
});

describe('OAuth settings', () => {
  const base = { ...DEFAULT_SYNTH_SETTINGS, ...OAUTH_SETTINGS };
  const problems = (settings: Record<string, unknown>) => {
    try {
      parseSettings(settings);
      return [];
    } catch (err) {
      return (err as Error).message.split('\n').slice(1);
    }
  };

  it('are off by default, and on with a consent page', () => {
    expect(parseSettings(DEFAULT_SYNTH_SETTINGS)).toMatchObject({ oauthResources: [] });
    expect(parseSettings(DEFAULT_SYNTH_SETTINGS).consentPageUrl).toBeUndefined();
    expect(parseSettings(base)).toMatchObject({
      consentPageUrl: OAUTH_SETTINGS.consentPageUrl,
      oauthResources: [OAUTH_SETTINGS.oauthResources],
      oauthRegistrationRate: 5,
      oauthTokenRate: 20,
    });
  });

  it('name every problem: https only, an issuer that is an origin, the endpoint at /mcp, nothing of OAuth without a consent page', () => {
    expect(
      problems({
        ...DEFAULT_SYNTH_SETTINGS,
        consentPageUrl: 'http://dash.example.com/consent',
        oauthIssuer: 'https://auth.example.com/oauth',
        mcpEndpointUrl: 'https://mcp.example.com/v1/mcp',
        oauthResources: 'https://forms.example.com/mcp#x,https://other.example.com/mcp?a=1',
      }),
    ).toEqual([
      '- consentPageUrl: consentPageUrl must be an https URL',
      '- oauthIssuer: oauthIssuer must be an origin (https://host), with no path or query',
      '- mcpEndpointUrl: mcpEndpointUrl must end in /mcp: the REST API serves the endpoint there',
      '- oauthResources.0: each OAuth resource cannot hold a fragment (#), a user or a password',
      '- oauthResources.1: each OAuth resource cannot hold a query (?)',
    ]);
    expect(
      problems({
        ...DEFAULT_SYNTH_SETTINGS,
        oauthIssuer: 'https://auth.example.com',
        oauthResources: 'https://forms.example.com/mcp',
      }),
    ).toEqual([
      '- oauthIssuer: is read only with OAuth on: set consentPageUrl',
      '- oauthResources: is read only with OAuth on: set consentPageUrl',
    ]);
  });

  it('come from CDK context too', () => {
    const built = buildApp({ context: { ...SKIP_BUNDLING, ...DEFAULT_SYNTH_SETTINGS, ...OAUTH_SETTINGS } });
    expect(built.settings.consentPageUrl).toBe(OAUTH_SETTINGS.consentPageUrl);
    expect(built.stateless.oauth).toBeDefined();
    expect(built.stateless.functions.oauth).toBeDefined();
  });

  it('metadata documents: on unless turned off (true or false, from props or context)', () => {
    expect(parseSettings(base).oauthClientMetadataDocuments).toBeUndefined();
    for (const [given, parsed] of [
      [true, true],
      [false, false],
      ['true', true],
      ['false', false],
    ] as const)
      expect(
        parseSettings({ ...base, oauthClientMetadataDocuments: given }).oauthClientMetadataDocuments,
      ).toBe(parsed);
    expect(problems({ ...base, oauthClientMetadataDocuments: 'no' })).toEqual([
      '- oauthClientMetadataDocuments: oauthClientMetadataDocuments must be true or false',
    ]);
    expect(problems({ ...DEFAULT_SYNTH_SETTINGS, oauthClientMetadataDocuments: 'false' })).toEqual([
      '- oauthClientMetadataDocuments: is read only with OAuth on: set consentPageUrl',
    ]);
  });

  it('identity providers (contract §17): a list or its JSON text, validated; read only with OAuth on', () => {
    expect(parseSettings(base).identityProviders).toBeUndefined();
    const idps = [{ issuer: 'https://idp.example.com', userClaim: 'sub' }];
    expect(parseSettings({ ...base, identityProviders: idps }).identityProviders).toEqual(idps);
    expect(parseSettings({ ...base, identityProviders: JSON.stringify(idps) }).identityProviders).toEqual(
      idps,
    );
    expect(parseSettings({ ...base, identityProviders: '[]' }).identityProviders).toEqual([]);
    expect(problems({ ...base, identityProviders: '[{"issuer":"http://idp.example.com"}]' })).toEqual([
      '- identityProviders: must be a list of { issuer, jwksUri?, userClaim? }: [0].issuer must be an https URL',
    ]);
    expect(problems({ ...base, identityProviders: 'not json' })).toEqual([
      '- identityProviders: must be a list of { issuer, jwksUri?, userClaim? }: must be a list of { issuer, jwksUri?, userClaim? }',
    ]);
    expect(problems({ ...DEFAULT_SYNTH_SETTINGS, identityProviders: idps })).toEqual([
      '- identityProviders: is read only with OAuth on: set consentPageUrl',
    ]);
  });

  it('identity providers: the OAuth function trusts the deployment’s jwtIssuer unless the setting names others', () => {
    const env = functionNamed(on.stateless, 'Oauth').env;
    expect(JSON.parse(env.IDENTITY_PROVIDERS as string)).toEqual([
      { issuer: DEFAULT_SYNTH_SETTINGS.jwtIssuer },
    ]);
  });

  it('metadata documents off: the OAuth function and the consent routes refuse them (`OAUTH_CLIENT_METADATA_DOCUMENTS=0`), no other function is told', () => {
    // The shared synth with OAuth on turns them off (the artifact suite deploys with the setting
    // unset, and its OAuth function advertises documents).
    for (const name of ['Oauth', ...CONSENT_ROUTES.map((m) => pascal(m.name))])
      expect(functionNamed(on.stateless, name).env.OAUTH_CLIENT_METADATA_DOCUMENTS, name).toBe('0');
    for (const { id, env } of functionsOf(on.stateless).filter(
      (f) => !/^(Oauth|GetOauthRequest|ApproveOauthRequest|DenyOauthRequest)Function/.test(f.id),
    ))
      expect(env.OAUTH_CLIENT_METADATA_DOCUMENTS, id).toBeUndefined();
  });
});

describe('McpKeyAuthorizer with oauth, in another stack', () => {
  const consumer = () => {
    const stack = new Stack(new App({ context: SKIP_BUNDLING }), 'Consumer');
    const handler = new LambdaFunction(stack, 'Authorizer', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => ({})'),
    });
    return { stack, handler };
  };
  const oauth = { resource: 'https://forms.example.com/mcp', issuer: 'https://auth.example.com' };

  it('binds its own authorizer function to the resource and serves the resource’s metadata on the API', () => {
    const { stack, handler } = consumer();
    const keys = new McpKeyAuthorizer(stack, 'McpKeys', { handler, oauth });
    const api = new RestApi(stack, 'Api');
    api.root
      .addResource('mcp')
      .addMethod('POST', new MockIntegration(), { authorizer: keys.attachToRestApi(api) });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { MCP_RESOURCE: oauth.resource } },
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNAUTHORIZED',
      ResponseParameters: {
        'gatewayresponse.header.www-authenticate': `'${
          restGatewayResponses({
            resourceMetadataUrl: 'https://forms.example.com/.well-known/oauth-protected-resource/mcp',
          }).UNAUTHORIZED.headers['www-authenticate']
        }'`,
      },
    });
    const methods = restMethods(template);
    expect(
      JSON.parse(
        methods.get('GET /.well-known/oauth-protected-resource/mcp').Integration.IntegrationResponses[0]
          .ResponseTemplates['application/json'],
      ),
    ).toEqual(protectedResourceDocument(oauth.resource, oauth.issuer));
    expect(methods.get('POST /register')?.Integration.Uri).toBe('https://auth.example.com/oauth/register');
  });

  it('refuses what it cannot do: an imported function, a key page beside OAuth, a token resource without its path', () => {
    const { stack, handler } = consumer();
    expect(
      () =>
        new McpKeyAuthorizer(stack, 'Imported', {
          handler: LambdaFunction.fromFunctionArn(
            stack,
            'Fn',
            'arn:aws:lambda:eu-west-1:123456789012:function:x',
          ),
          oauth,
        }),
    ).toThrow(/function this app owns/);
    const api = new RestApi(stack, 'Api');
    api.root.addResource('mcp').addMethod('POST', new MockIntegration());
    const keys = new McpKeyAuthorizer(stack, 'McpKeys', { handler, oauth });
    expect(() => keys.attachToRestApi(api, { keysPageUrl: 'https://dash.example.com/keys' })).toThrow(
      /keysPageUrl/,
    );
    expect(
      () =>
        new McpKeyAuthorizer(stack, 'Token', {
          handler,
          oauth: { ...oauth, resource: api.urlForPath('/mcp') },
        }),
    ).toThrow(/oauth.path is required/);
  });
});

describe('McpKeyAuthorizer with a catalogue of its own (contract §19)', () => {
  const team = [{ name: 'summarize_responses', scope: 'svc.forms.read' as const, destructive: false }];

  it('sets MCP_TOOLS on an authorizer function the app owns', () => {
    const stack = new Stack(new App({ context: SKIP_BUNDLING }), 'Team');
    const handler = new LambdaFunction(stack, 'Authorizer', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => ({})'),
    });
    new McpKeyAuthorizer(stack, 'McpKeys', { handler, tools: team });
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { MCP_TOOLS: JSON.stringify(team) } },
    });
  });

  it('refuses an imported function and a catalogue with problems, naming them', () => {
    const stack = new Stack(new App({ context: SKIP_BUNDLING }), 'Team');
    const imported = LambdaFunction.fromFunctionArn(
      stack,
      'Fn',
      'arn:aws:lambda:eu-west-1:123456789012:function:x',
    );
    expect(() => new McpKeyAuthorizer(stack, 'Imported', { handler: imported, tools: team })).toThrow(
      /tools needs an authorizer function this app owns \(its MCP_TOOLS is set here\)/,
    );
    const handler = new LambdaFunction(stack, 'Authorizer', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => ({})'),
    });
    expect(
      () =>
        new McpKeyAuthorizer(stack, 'Bad', {
          handler,
          tools: [{ name: 'has space', scope: 'svc.forms.admin' }] as never,
        }),
    ).toThrow(/tools \[0\]\.name must be a tool name.*\[0\]\.scope must be one of/);
  });
});
