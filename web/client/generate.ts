import { readFileSync, writeFileSync } from 'node:fs';
import { astToString, openapiTS } from '@svc/openapi-codegen';

/** Where `npm run openapi` writes the client's types. */
export const CLIENT_TYPES_PATH = 'web/client/schema.gen.ts';

const HEADER = `// Generated from docs/openapi.json by \`npm run openapi\` (openapi-typescript). Do not edit.
// The typed clients and the key pages read the API's shapes from here.

`;

/** The TypeScript types of an OpenAPI document, exactly as committed at CLIENT_TYPES_PATH. */
export async function renderClientTypes(document: object): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], {
    silent: true,
    alphabetize: false,
    exportType: false,
    // Every schema also under its own name (`KeyMetadata`), so the clients name none by hand.
    rootTypes: true,
    rootTypesNoSchemaPrefix: true,
    rootTypesKeepCasing: true,
  });
  return `${HEADER}${astToString(ast)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as object;
  writeFileSync(CLIENT_TYPES_PATH, await renderClientTypes(document));
  console.log(`wrote ${CLIENT_TYPES_PATH}`);
}
