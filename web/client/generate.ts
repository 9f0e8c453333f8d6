import { readFileSync, writeFileSync } from 'node:fs';
import { astToString, openapiTS } from '@svc/openapi-codegen';
import { ELEMENTS_ONLY, forTheClients } from './client-document.ts';

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
 * carry every operation's responses. The queries of ELEMENTS_ONLY stay in `operations`.
 */
function withQueries(types: string, operations: Operation[]): string {
  const queries: string[] = [];
  let text = types;
  for (const op of operations.filter(({ id }) => !ELEMENTS_ONLY.has(id))) {
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

/**
 * The name and doc comment the clients give each schema they reach (their packages' declarations
 * carry these, once each); a schema not listed keeps its own name and its OpenAPI description.
 */
const SCHEMA_TYPES: Record<string, { name?: string; doc: string }> = {
  KeyMetadata: {
    doc: "A key's metadata as the API answers it: never its secret or digest. `kind` tells a key from an app's grant.",
  },
  CreateKeyRequest: {
    doc: 'The body of `create`: a name, the workspaces and scopes the key reaches, and its lifetime in days.',
  },
  CreateKeyResponse: {
    doc: 'What `create` answers: the full key (`api_key`, shown once: never store it) and its metadata.',
  },
  RotateKeyResponse: {
    doc: "What `rotate` answers: the new key (shown once), its metadata, and the revoked key's (`revoked_key`).",
  },
  RevokeKeyResponse: { doc: "What `revoke` answers: the revoked key's metadata." },
  ListKeysResponse: {
    doc: "A page of the caller's keys (`data`) and the cursor of the next page (`next_cursor`, null on the last).",
  },
  KeyListItem: {
    doc: "A key or app of the caller's list: its metadata and its calls of the last seven days.",
  },
  ListEventsResponse: {
    doc: "A page of a key's events (`data`), newest first, and the cursor of the next page.",
  },
  ListWorkspaceKeysResponse: {
    doc: 'A page of the keys that reach a workspace (`data`) and the cursor of the next page.',
  },
  ListWorkspaceEventsResponse: {
    doc: "A page of a workspace's governance events (`data`), newest first, and the cursor of the next page.",
  },
  CutOffKeyResponse: { doc: "What `cutOff` answers: the key as the workspace's administrators now see it." },
  WorkspacePolicyRequest: {
    doc: 'The body of `putPolicy`: MCP access, the kinds of credential, the scopes keys may hold, the longest lifetime, and which apps may connect.',
  },
  PutWorkspacePolicyResponse: {
    doc: 'What `putPolicy` answers: the saved policy and how many keys it cut off from the workspace (`affected_keys`).',
  },
  WorkspacePolicyResponse: { name: 'WorkspacePolicy', doc: "The workspace's policy, as the API answers it." },
  WorkspacePolicy: {
    name: 'WorkspacePolicyRules',
    doc: "A policy's rules without who set them when: what a `workspace.policy_changed` event's `before` and `after` hold.",
  },
  OAuthRequest: {
    doc: "An app's sign-in request as the consent page shows it: the app, where it returns to, the scopes it asks for.",
  },
  ApproveOAuthRequest: {
    doc: "The body of the consent client's `approve`: the workspaces, scopes and lifetime the person grants the app.",
  },
  OAuthDecision: { doc: 'Where the consent page sends the browser after a decision (`redirect_to`).' },
  WidenedGrant: { doc: 'The live grant a request widens (step-up).' },
  KeyEvent: { doc: "One event of a key's history (contract §10); narrow on `type` to read its `details`." },
  WorkspaceKey: { doc: "A key as a workspace's administrators see it: never its other workspaces." },
  WorkspaceEvent: {
    doc: 'A governance event: a cut-off or a policy change; narrow on `type` to read its `details`.',
  },
  GrantClient: {
    doc: 'The app an OAuth grant or sign-in request is for; `verified_domain` null: unverified (registered dynamically).',
  },
  Problem: { doc: 'An RFC 9457 problem body as the API sends it.' },
};

/**
 * openapi-typescript's comments, shorter: its `@enum {string}` tag says again what the type says,
 * its `@description` tag is the comment itself, and a timestamp's five lines say one thing.
 */
const withoutEnumTags = (types: string) =>
  types
    .replace(/^ *\/\*\* @enum \{string\} \*\/\n/gm, '')
    .replace(/^ *\* @enum \{string\}\n/gm, '')
    .replace(/^( *)(\/\*\*|\*) @description /gm, '$1$2 ')
    .replace(
      /^( *)\/\*\*\n *\* Format: date-time\n *\* @example (\S+)\n *\*\/\n/gm,
      '$1/** An ISO 8601 date-time, e.g. $2 */\n',
    );

/**
 * Each schema of `components` moved out to a declaration of its own, under the name the clients use
 * (`KeyMetadata`), with `components` pointing at them: what a client exports then brings into its
 * package's declarations only the schemas it reaches, each once, at the top level.
 */
function namedSchemas(types: string): string {
  const open =
    '\nexport interface components {\n    /** The named schemas of the request and response bodies. */\n    schemas: {\n';
  const start = types.indexOf(open);
  const end = types.indexOf('\n    };\n', start);
  if (start < 0 || end < 0) throw new Error('openapi-typescript wrote `components` in an unknown form');
  // One member per schema: its comment, `Name: type`, and the type's further lines (indented deeper,
  // or closing at the member's own indentation with `}`, `)` or `]`).
  const members: { schema: string; description: string; type: string }[] = [];
  let comment: string[] = [];
  for (const line of types.slice(start + open.length, end).split('\n')) {
    const member = /^ {8}"?([\w$]+)"?: (.*)$/.exec(line);
    if (line.startsWith('        /**') || (comment.length > 0 && !comment.at(-1)?.endsWith('*/')))
      comment.push(line);
    else if (member?.[1] && member[2] !== undefined) {
      const description = comment
        .join(' ')
        .replace(/\/\*\*|\*\/|\*|@description/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
      members.push({ schema: member[1], description, type: member[2] });
      comment = [];
    } else if (members.length > 0 && (line.startsWith('            ') || /^ {8}[}\])]/.test(line)))
      (members.at(-1) as { type: string }).type += `\n${line.slice(8)}`;
    else throw new Error(`unexpected line in components.schemas: ${line}`);
  }
  const nameOf = (schema: string) => SCHEMA_TYPES[schema]?.name ?? schema;
  const refs = (text: string) =>
    text.replace(/components\["schemas"\]\["([\w$]+)"\]/g, (_m, schema: string) => nameOf(schema));
  const declarations = members.map(({ schema, description, type }) => {
    const doc =
      SCHEMA_TYPES[schema]?.doc ?? (description || `The \`${schema}\` schema of docs/openapi.json.`);
    // A type alias, as openapi-typescript writes a schema: an interface would make each of its
    // members an item of the packages' API reports, to document one by one.
    return `/** ${doc} */\nexport type ${nameOf(schema)} = ${refs(type)}\n`;
  });
  const pointers = members.map(({ schema }) => `        ${schema}: ${nameOf(schema)};`).join('\n');
  return `${types.slice(0, start + open.length)}${pointers}${types.slice(end)}${declarations.join('')}`;
}

/** The TypeScript types of an OpenAPI document, exactly as committed at CLIENT_TYPES_PATH. */
export async function renderClientTypes(api: object): Promise<string> {
  const document = forTheClients(api);
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], {
    silent: true,
    alphabetize: false,
    exportType: false,
  });
  const operations = operationsOf(document as Document);
  const types = namedSchemas(withoutEnumTags(documented(astToString(ast), operations)));
  return `${HEADER}${withQueries(types, operations)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as object;
  writeFileSync(CLIENT_TYPES_PATH, await renderClientTypes(document));
  console.log(`wrote ${CLIENT_TYPES_PATH}`);
}
