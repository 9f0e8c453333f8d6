import { readFileSync, writeFileSync } from 'node:fs';
import { withEndpointTable } from '#lib/routes/table';
import { OPENAPI_PATH, renderOpenApi } from './openapi.ts';

writeFileSync(OPENAPI_PATH, renderOpenApi());
console.log(`wrote ${OPENAPI_PATH}`);
writeFileSync('README.md', withEndpointTable(readFileSync('README.md', 'utf8')));
console.log('wrote the endpoint table of README.md');
