// Local defaults for the handlers' Powertools logger and metrics, set before anything builds them.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
const { JAVA_MISSING_MESSAGE } = await import('./emulation/dynamodb-local.ts');
const { LockedError, startLocalService } = await import('./service.ts');

/**
 * `npm start`: the whole service on one machine. Settings: HOST, PORT, DATA_DIR,
 * DYNAMODB_LOCAL_URL (a DynamoDB Local already running, instead of starting one); --in-memory.
 */
const inMemory = process.argv.includes('--in-memory');
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.DATA_DIR ?? './.data';
const dynamoDbLocalUrl = process.env.DYNAMODB_LOCAL_URL || undefined;
const { JWT_ISSUER, JWT_AUDIENCE, JWKS_URL } = process.env;

function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(1);
}

if (!Number.isInteger(port) || port < 0 || port > 65_535)
  fail(`PORT must be a port number, got ${process.env.PORT}`);
const externalJwt =
  JWT_ISSUER || JWT_AUDIENCE || JWKS_URL
    ? { issuer: JWT_ISSUER, audience: JWT_AUDIENCE, jwksUrl: JWKS_URL }
    : undefined;
if (externalJwt && (!externalJwt.issuer || !externalJwt.audience || !externalJwt.jwksUrl)) {
  fail('JWT_ISSUER, JWT_AUDIENCE and JWKS_URL must be set together');
}

const started = performance.now();
const service = await startLocalService({
  dataDir,
  inMemory,
  dynamoDbLocalUrl,
  host,
  port,
  externalJwt: externalJwt as { issuer: string; audience: string; jwksUrl: string } | undefined,
}).catch((err: unknown) => {
  if (err instanceof LockedError) fail(err.message);
  if (err instanceof Error && err.message === JAVA_MISSING_MESSAGE) fail(err.message);
  fail(`could not start: ${err instanceof Error ? err.message : String(err)}`);
});

const base = service.url;

/** The verifier options for the banner: the pepper's bytes stay off the terminal. */
function printable(options: ReturnType<typeof service.verifierOptions>) {
  return 'pepper' in options && options.pepper
    ? { ...options, pepper: { version: options.pepper.version, base64: `<GET ${base}/_dev/verifier>` } }
    : options;
}
console.log(`
MCP API key service (local) ready in ${Math.round(performance.now() - started)} ms at ${base}
  data: ${inMemory ? 'in memory (discarded on exit)' : service.dataDir}${dynamoDbLocalUrl ? ` (tables in the DynamoDB Local at ${dynamoDbLocalUrl})` : ''}
  auth: ${externalJwt ? `tokens from ${externalJwt.issuer}` : 'local dev issuer (POST /_dev/token)'}
  docs: ${base}/openapi.json
  page: ${base}/ ${externalJwt ? '(its dev sign-in is off with JWT_ISSUER)' : '(dev sign-in, then create, rotate and revoke keys)'}

Quickstart (bash):
  BASE=${base}
  TOKEN=$(curl -s -X POST $BASE/_dev/token -H 'content-type: application/json' \\
    -d '{"sub":"alice","email_verified":true}' | node -p "JSON.parse(require('fs').readFileSync(0,'utf8')).token")
  WS=3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61
  curl -s -X PUT $BASE/_dev/memberships/alice/$WS -H 'content-type: application/json' -d '{"role":"editor"}'
  curl -s -X POST $BASE/v1/mcp/api-keys -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \\
    -d "{\\"name\\":\\"laptop\\",\\"workspace_ids\\":[\\"$WS\\"],\\"scopes\\":[\\"svc.forms.read\\"]}"
  curl -s $BASE/v1/mcp/api-keys -H "authorization: Bearer $TOKEN"

${
  process.env.OAUTH === 'off'
    ? ''
    : `Enterprise-managed authorization: the development identity provider at ${base}/_dev/idp is trusted
(docs/oauth.md, "Enterprise"). An ID token for alice, then an ID-JAG for an app (CLIENT_ID):
  ID=$(curl -s -X POST $BASE/_dev/idp/id-token -H 'content-type: application/json' -d '{"sub":"alice"}' \\
    | node -p "JSON.parse(require('fs').readFileSync(0,'utf8')).id_token")
  curl -s -X POST $BASE/_dev/idp/token -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \\
    -d requested_token_type=urn:ietf:params:oauth:token-type:id-jag -d subject_token_type=urn:ietf:params:oauth:token-type:id_token \\
    -d subject_token=$ID -d audience=$BASE -d resource=$BASE/mcp -d client_id=$CLIENT_ID

`
}Verifying in your own MCP server: createMcpKeyVerifier(options) with these options, as they are
(docs/mcp-servers.md); the pepper is left out here: GET ${base}/_dev/verifier returns it too.
  ${JSON.stringify(printable(service.verifierOptions()))}

Press Ctrl-C to stop.
`);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping${dynamoDbLocalUrl ? '' : ' (DynamoDB Local too)'}...`);
  await service.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

export {};
