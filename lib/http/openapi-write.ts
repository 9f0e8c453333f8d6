import { writeFileSync } from 'node:fs';
import { OPENAPI_PATH, renderOpenApi } from './openapi.ts';

writeFileSync(OPENAPI_PATH, renderOpenApi());
console.log(`wrote ${OPENAPI_PATH}`);
