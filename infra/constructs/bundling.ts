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
    alias: bundleAwsSdk
      ? { '@aws-sdk/credential-provider-node': './lib/credentials.ts' }
      : ({} as Record<string, string>),
    sourceMap,
  };
}

/** Every Lambda entry point: the files in functions/ (a test keeps the two equal). */
export type FunctionName =
  | 'create-key'
  | 'list-keys'
  | 'rotate-key'
  | 'revoke-key'
  | 'list-events'
  | 'report-leaked-keys'
  | 'github-secret-scanning'
  | 'mcp-authorizer'
  | 'mcp-server'
  | 'publish-events'
  | 'expiry-sweep';

/**
 * Every function's bundle, in one table that `ServiceFunction` and the benchmarks read. The key
 * authorizer runs on every MCP call, so its cold start is the product's: it bundles the SDK
 * (about 85 ms against 310 ms with the runtime's copy). The others keep the runtime's SDK,
 * which keeps them near 165 KB (bundled: 377 KB) at a cold start measured at 190-290 ms here
 * against about 130 ms bundled (docs/benchmarks.md).
 */
export const FUNCTION_BUNDLING: Record<FunctionName, BundlingChoice> = {
  'mcp-authorizer': { bundleAwsSdk: true },
  'create-key': {},
  'list-keys': {},
  'rotate-key': {},
  'revoke-key': {},
  'mcp-server': {},
  'list-events': {},
  'report-leaked-keys': {},
  'github-secret-scanning': {},
  'publish-events': {},
  'expiry-sweep': {},
};
