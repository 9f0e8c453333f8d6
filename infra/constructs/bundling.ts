import { LogLevel } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * How each function's bundle is built beyond the defaults of `ServiceFunction`: whether the AWS
 * SDK goes into the bundle and whether a source map ships. Plain data, so the benchmarks bundle
 * every function exactly as a deployment does.
 */
export interface BundlingChoice {
  /**
   * Bundle the AWS SDK (tree-shaken) instead of loading the Lambda runtime's copy at cold start.
   * The SDK's default credential chain is replaced by environment credentials (where Lambda puts
   * them): see `lib/credentials.ts`. @default false
   */
  bundleAwsSdk?: boolean;
  /**
   * Ship a source map (positions only: the sources stay in the repository, which keeps the map
   * small and quick to load) and run with `--enable-source-maps`. @default true
   */
  sourceMap?: boolean;
}

/** The esbuild settings a choice stands for. */
export function esbuildSettings({ bundleAwsSdk = false, sourceMap = true }: BundlingChoice) {
  return {
    // Event streams are a capability the SDK loads with a dynamic import, only for streaming
    // operations; none of ours streams, so it stays out of the bundle (and is never loaded).
    external: bundleAwsSdk ? ['@smithy/core/event-streams'] : ['@aws-sdk/*'],
    alias: {
      ...(bundleAwsSdk && { '@aws-sdk/credential-provider-node': './lib/credentials.ts' }),
      // middy's `import { STATUS_CODES } from 'node:http'` would load undici: see the module.
      'node:http': './infra/constructs/node-http.cjs',
    } as Record<string, string>,
    sourceMap,
    // A dynamic `import()` of a Node built-in (the SDK loads `node:http` so) builds the module's
    // ESM facade, which reads every export, and `node:http`'s lazy ones load undici: about 20 ms
    // of a cold start (`npm run bench`). As `require()`, the built-in loads alone.
    supported: { 'dynamic-import': false } as Record<string, boolean>,
    // Warnings and errors only: esbuild's size summary of each of the ~20 bundles buried a synth's
    // own findings (`npm run synth` is quiet unless something is wrong).
    logLevel: LogLevel.WARNING,
  };
}

/** Every Lambda entry point: the files in functions/ (a test keeps the two equal). */
export type FunctionName =
  | 'create-key'
  | 'list-keys'
  | 'rotate-key'
  | 'revoke-key'
  | 'update-key'
  | 'list-mcp-tools'
  | 'list-events'
  | 'report-leaked-keys'
  | 'github-secret-scanning'
  | 'mcp-authorizer'
  | 'mcp-server'
  | 'list-workspace-keys'
  | 'cut-off-key'
  | 'get-workspace-policy'
  | 'put-workspace-policy'
  | 'list-workspace-events'
  | 'get-key-usage'
  | 'get-workspace-usage'
  | 'publish-events'
  | 'expiry-sweep'
  | 'apply-workspace-policy'
  | 'get-oauth-request'
  | 'approve-oauth-request'
  | 'deny-oauth-request'
  | 'oauth';

/**
 * Per function, by measurement (`npm run bench` measures both choices of every function that
 * loads the AWS SDK; docs/benchmarks.md). A tree-shaken SDK in the bundle started 16-50 ms faster
 * than loading the Lambda runtime's copy (CommonJS files with every command and schema) for every
 * function that calls AWS, so each of them bundles it. The MCP server calls no AWS API, so the
 * choice does not arise.
 */
export const FUNCTION_BUNDLING: Record<FunctionName, BundlingChoice> = {
  'mcp-authorizer': { bundleAwsSdk: true },
  'create-key': { bundleAwsSdk: true },
  'list-keys': { bundleAwsSdk: true },
  'rotate-key': { bundleAwsSdk: true },
  'revoke-key': { bundleAwsSdk: true },
  'update-key': { bundleAwsSdk: true },
  'list-mcp-tools': { bundleAwsSdk: true },
  'list-events': { bundleAwsSdk: true },
  'report-leaked-keys': { bundleAwsSdk: true },
  'github-secret-scanning': { bundleAwsSdk: true },
  'publish-events': { bundleAwsSdk: true },
  'expiry-sweep': { bundleAwsSdk: true },
  'list-workspace-keys': { bundleAwsSdk: true },
  'cut-off-key': { bundleAwsSdk: true },
  'get-workspace-policy': { bundleAwsSdk: true },
  'put-workspace-policy': { bundleAwsSdk: true },
  'list-workspace-events': { bundleAwsSdk: true },
  'get-key-usage': { bundleAwsSdk: true },
  'get-workspace-usage': { bundleAwsSdk: true },
  'apply-workspace-policy': { bundleAwsSdk: true },
  'get-oauth-request': { bundleAwsSdk: true },
  'approve-oauth-request': { bundleAwsSdk: true },
  'deny-oauth-request': { bundleAwsSdk: true },
  oauth: { bundleAwsSdk: true },
  'mcp-server': {},
};
