import { readFileSync, writeFileSync } from 'node:fs';
import { withEndpointTable } from './endpoint-table.ts';
import { withOAuthTable } from './oauth-table.ts';
import { OPENAPI_PATH, renderOpenApi } from './openapi.ts';

writeFileSync(OPENAPI_PATH, renderOpenApi());
console.log(`wrote ${OPENAPI_PATH}`);
writeFileSync('docs/api.md', withEndpointTable(readFileSync('docs/api.md', 'utf8')));
console.log('wrote the endpoint table of docs/api.md');
writeFileSync('docs/oauth.md', withOAuthTable(readFileSync('docs/oauth.md', 'utf8')));
console.log('wrote the endpoint table of docs/oauth.md');
