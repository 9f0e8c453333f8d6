/**
 * The OpenAPI document the clients' types are generated from (web/client/generate.ts): which
 * operations they type, and schemas that repeat another's members written as that one and more.
 */

/**
 * Operations the elements call (web/client/usage.ts) that the client package leaves untyped, to
 * stay within its 50 kB: their types are generated as every operation's are, but their query stays
 * in `operations` instead of moving to the exported `queries`, so the package's declarations,
 * which carry `queries` and only the schemas its exports reach, hold nothing of them.
 */
export const ELEMENTS_ONLY: ReadonlySet<string> = new Set(['getKeyUsage', 'getWorkspaceUsage']);

/**
 * Schemas the clients write as another's type and the members they add (`KeyListItem` is
 * `KeyMetadata & { calls_7d }`), where the document repeats every member of the other: each member
 * is then declared once. Each one's base is compared as the document writes it.
 */
const EXTENDS: Record<string, string> = {
  KeyListItem: 'KeyMetadata',
  WorkspacePolicyResponse: 'WorkspacePolicy',
  PutWorkspacePolicyResponse: 'WorkspacePolicyResponse',
};

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}

/** Each schema of EXTENDS as an `allOf` of its base and what it adds; throws if it no longer repeats its base. */
function extended(schemas: Record<string, unknown>): void {
  const written = structuredClone(schemas) as Record<string, ObjectSchema | undefined>;
  for (const [name, baseName] of Object.entries(EXTENDS)) {
    const schema = written[name];
    const base = written[baseName];
    if (!schema || !base) continue;
    const same = (member: string) =>
      JSON.stringify(schema.properties?.[member]) === JSON.stringify(base.properties?.[member]);
    const repeats =
      Object.keys(base.properties ?? {}).every(same) &&
      (base.required ?? []).every((member) => schema.required?.includes(member));
    if (!repeats) throw new Error(`${name} no longer repeats ${baseName}: take it out of EXTENDS`);
    const added = Object.fromEntries(
      Object.entries(schema.properties ?? {}).filter(([member]) => !same(member)),
    );
    schemas[name] = {
      allOf: [
        { $ref: `#/components/schemas/${baseName}` },
        { type: 'object', properties: added, required: (schema.required ?? []).filter((m) => m in added) },
      ],
    };
  }
}

/** The `$ref`s anywhere in `value`. */
function refsIn(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, into);
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') into.add(item);
      else refsIn(item, into);
    }
  return into;
}

/**
 * The document the clients are typed from: the API's operations without the OAuth protocol's
 * (tag `oauth`: MCP clients call them, never a dashboard), its schemas of EXTENDS written as their
 * base and more, and only the components the operations reach.
 */
export function forTheClients(document: object): object {
  const doc = structuredClone(document) as {
    paths?: Record<string, Record<string, { tags?: string[] }>>;
    components?: Record<string, Record<string, unknown>>;
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item))
      if (operation?.tags?.includes('oauth')) delete item[method];
    if (Object.keys(item).length === 0) delete doc.paths?.[path];
  }
  extended(doc.components?.schemas ?? {});
  const reached = refsIn(doc.paths, new Set());
  for (let size = -1; size !== reached.size; ) {
    size = reached.size;
    for (const ref of [...reached]) {
      const [, , kind, name] = ref.split('/');
      if (kind && name) refsIn(doc.components?.[kind]?.[name], reached);
    }
  }
  for (const [kind, members] of Object.entries(doc.components ?? {}))
    if (kind !== 'securitySchemes')
      for (const name of Object.keys(members))
        if (!reached.has(`#/components/${kind}/${name}`)) delete members[name];
  return doc;
}
