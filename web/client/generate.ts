import { readFileSync, writeFileSync } from 'node:fs';
import { astToString, openapiTS } from '@svc/openapi-codegen';

/** Where `npm run openapi` writes the client's types. */
export const CLIENT_TYPES_PATH = 'web/client/schema.gen.ts';

const HEADER = `// Generated from docs/openapi.json by \`npm run openapi\` (openapi-typescript). Do not edit.
// The typed clients and the key pages read the API's shapes from here.

`;

interface Document {
  paths?: Record<string, Record<string, { operationId?: string; summary?: string }>>;
}

/** What each member of `components` holds; openapi-typescript writes them without a word. */
const COMPONENT_DOCS: Record<string, string> = {
  schemas: 'The named schemas of the request and response bodies.',
  responses: 'The responses operations share.',
  parameters: 'The parameters operations share.',
  requestBodies: 'The request bodies operations share.',
  headers: 'The headers responses share.',
  pathItems: 'The path items routes share.',
};

interface Operation {
  path: string;
  method: string;
  id: string;
  summary: string;
}

const operationsOf = (document: Document): Operation[] =>
  Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => typeof op === 'object' && op.operationId)
      .map(([method, op]) => ({
        path,
        method: method.toUpperCase(),
        id: op.operationId ?? '',
        summary: op.summary ?? '',
      })),
  );

/** An operation's one-line doc: its method, path and summary. */
const operationDoc = (op: Operation) => `/** \`${op.method} ${op.path}\`: ${op.summary}. */`;

/**
 * The doc comments openapi-typescript leaves out, so that every name the client and the elements
 * export is documented (their API reports): the interfaces, `components`' members, each route of
 * `paths` and each operation of `operations`, from the operations' summaries.
 */
function documented(types: string, operations: Operation[]): string {
  let text = types
    .replace(
      /^export interface paths \{$/m,
      "/** The API's routes by path: each method's operation (`operations`). */\n$&",
    )
    .replace(
      /^export interface components \{$/m,
      "/** The API's reusable definitions; `schemas` holds the bodies' shapes. */\n$&",
    )
    .replace(
      /^export interface operations \{$/m,
      "/** The API's operations by `operationId`: parameters, request body and every response. */\n$&",
    );
  for (const [member, doc] of Object.entries(COMPONENT_DOCS))
    text = text.replace(new RegExp(`^( {4})(${member}): `, 'm'), `$1/** ${doc} */\n$1$2: `);
  for (const path of new Set(operations.map((op) => op.path))) {
    const routes = operations
      .filter((op) => op.path === path)
      .map((op) => `\`${op.method}\`: ${op.summary}.`);
    text = text.replace(`\n    "${path}": {\n`, `\n    /** ${routes.join(' ')} */\n    "${path}": {\n`);
  }
  for (const op of operations)
    text = text.replace(`\n    ${op.id}: {\n`, `\n    ${operationDoc(op)}\n    ${op.id}: {\n`);
  return text;
}

/**
 * Each operation's query parameters, moved to `queries[operationId]` (which `operations` refers to):
 * the client's query types then reach four small objects, so its published declarations need not
 * carry every operation's responses.
 */
function withQueries(types: string, operations: Operation[]): string {
  const queries: string[] = [];
  let text = types;
  for (const op of operations) {
    const query = new RegExp(
      `(\\n {4}${op.id}: \\{\\n {8}parameters: \\{\\n {12}query\\??: )\\{\\n([\\s\\S]*?)\\n {12}\\};\\n`,
    );
    text = text.replace(query, (_match, head: string, body: string) => {
      queries.push(`    ${operationDoc(op)}\n    ${op.id}: {\n${body.replace(/^ {8}/gm, '')}\n    };`);
      return `${head}queries["${op.id}"];\n`;
    });
  }
  if (queries.length === 0) return text;
  return `${text}/** The query parameters of each operation that has any, by \`operationId\`. */\nexport interface queries {\n${queries.join('\n')}\n}\n`;
}

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
  const operations = operationsOf(document as Document);
  return `${HEADER}${withQueries(documented(astToString(ast), operations), operations)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as object;
  writeFileSync(CLIENT_TYPES_PATH, await renderClientTypes(document));
  console.log(`wrote ${CLIENT_TYPES_PATH}`);
}
