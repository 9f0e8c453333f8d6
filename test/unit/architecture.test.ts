import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import ts from '@svc/openapi-codegen/typescript';
import { describe, expect, it } from 'vitest';

/**
 * The folders of lib/ form layers: a folder may import another only if that one never imports it
 * back, directly or through others. Type-only imports count (a circle of types is still a circle),
 * and a module directly under lib/ (`runtime.ts`, `errors.ts`) is a node of its own, so a circle
 * cannot hide behind one. web/ is small enough to hold to the same rule file by file.
 */

type Edges = Map<string, Map<string, string[]>>;

/** What a circle is made of in a tree: the node a file belongs to. */
type NodeOf = (path: string) => string;

const IMPORT = /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]/g;

/** `keys/lifecycle.ts` is in `keys`; `runtime.ts` is its own node. */
const folderOf: NodeOf = (path) => (path.includes('/') ? (path.split('/')[0] as string) : path);

/** Each file is its own node. */
const fileOf: NodeOf = (path) => path;

/** The path under lib/ that `spec`, imported by `file`, names; undefined outside lib/. */
function target(file: string, spec: string): string | undefined {
  const path = spec.startsWith('#lib/')
    ? spec.slice('#lib/'.length)
    : spec.startsWith('.')
      ? posix.join(posix.dirname(file), spec)
      : undefined;
  if (path === undefined || path.startsWith('..')) return undefined;
  return path.endsWith('.ts') ? path : `${path}.ts`;
}

/** Which node imports which, and in which files; `files` maps a path under lib/ to its source. */
function importEdges(files: ReadonlyMap<string, string>, nodeOf: NodeOf = folderOf): Edges {
  const edges: Edges = new Map();
  for (const [file, source] of files)
    for (const match of source.matchAll(IMPORT)) {
      const to = target(file, match[1] ?? match[2] ?? '');
      const [from, into] = [nodeOf(file), to && nodeOf(to)];
      if (!into || from === into) continue;
      const out = edges.get(from) ?? new Map<string, string[]>();
      edges.set(from, out.set(into, [...new Set([...(out.get(into) ?? []), file])].sort()));
    }
  return edges;
}
/** The nodes `start` reaches by following imports. */
function reachedFrom(edges: Edges, start: string): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length > 0) {
    for (const next of edges.get(stack.pop() as string)?.keys() ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(next);
    }
  }
  return seen;
}

/**
 * Each circle: nodes that reach one another, as `a, b: a -> b (a/x.ts); b -> a (b/y.ts)`, each edge
 * with the files that make it.
 */
function importCircles(files: ReadonlyMap<string, string>, nodeOf: NodeOf = folderOf): string[] {
  const edges = importEdges(files, nodeOf);
  const nodes = [...edges.keys()].sort();
  const reached = new Map(nodes.map((node) => [node, reachedFrom(edges, node)]));
  const circles = new Set<string>();
  for (const node of nodes) {
    const members = nodes.filter((n) => reached.get(node)?.has(n) && reached.get(n)?.has(node));
    if (members.length < 2) continue;
    const ties = members.flatMap((a) =>
      members.flatMap((b) => {
        const by = edges.get(a)?.get(b);
        return by ? [`${a} -> ${b} (${by.join(', ')})`] : [];
      }),
    );
    circles.add(`${members.join(', ')}: ${ties.join('; ')}`);
  }
  return [...circles];
}

/** Every TypeScript file under `root` (node_modules aside), by its path under `root`. */
function sourcePaths(root: string, under = ''): string[] {
  return readdirSync(posix.join(root, under), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(under, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcePaths(root, path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every source file under `root`, by its path under `root`. */
function sources(root: string): Map<string, string> {
  return new Map(sourcePaths(root).map((path) => [path, readFileSync(`${root}/${path}`, 'utf8')]));
}

describe('the folders of lib/', () => {
  it('import one another without a circle', () => {
    const lib = sources('lib');
    expect(lib.size).toBeGreaterThan(50);
    // The reader sees the imports it must: the key lifecycle writes events.
    expect(importEdges(lib).get('keys')?.get('events')).toContain('keys/lifecycle.ts');
    expect(importCircles(lib)).toEqual([]);
  });
});

describe('the files of web/', () => {
  it('import one another without a circle', () => {
    const web = sources('web');
    expect(web.size).toBeGreaterThan(30);
    expect(web.has('client/schema.gen.ts')).toBe(true);
    expect(
      importEdges(web, fileOf).get('component/shared/reauth.ts')?.get('component/shared/dialogs.ts'),
    ).toEqual(['component/shared/reauth.ts']);
    expect(importCircles(web, fileOf)).toEqual([]);
  });
});

describe('the circle check', () => {
  it('finds a circle of type-only, multi-line, relative and re-exporting imports, naming its files', () => {
    const files = new Map([
      ['a/one.ts', "import type { B } from '#lib/b/two';\nimport { near } from './near.ts';"],
      ['a/near.ts', 'export const near = 1;'],
      ['b/two.ts', "import {\n  type C,\n  c,\n} from '../c/three.ts';"],
      ['c/three.ts', "export { one } from '#lib/a/one';\nimport { z } from 'zod';"],
      ['d/four.ts', "import { one } from '#lib/a/one';"],
    ]);
    expect(importCircles(files)).toEqual([
      'a, b, c: a -> b (a/one.ts); b -> c (b/two.ts); c -> a (c/three.ts)',
    ]);
  });

  it('finds a circle through a module directly under lib/, and one made by a dynamic import', () => {
    const files = new Map([
      ['x/a.ts', "import { shared } from '#lib/shared';"],
      ['shared.ts', "import { b } from './y/b.ts';"],
      ['y/b.ts', "const a = await import('#lib/x/a');"],
    ]);
    expect(importCircles(files)).toEqual([
      'shared.ts, x, y: shared.ts -> y (shared.ts); x -> shared.ts (x/a.ts); y -> x (y/b.ts)',
    ]);
  });

  it('finds a circle of two files of one folder when each file is a node', () => {
    const files = new Map([
      ['client/client.ts', "import { send } from './send.ts';"],
      ['client/send.ts', "import type { Options } from './client.ts';"],
      ['client/index.ts', "export * from './client.ts';"],
    ]);
    expect(importCircles(files)).toEqual([]);
    expect(importCircles(files, fileOf)).toEqual([
      'client/client.ts, client/send.ts: client/client.ts -> client/send.ts (client/client.ts); client/send.ts -> client/client.ts (client/send.ts)',
    ]);
  });

  it('finds nothing in layers', () => {
    const files = new Map([
      ['keys/lifecycle.ts', "import { keyCreated } from '#lib/events/model';"],
      ['events/model.ts', "import type { Scope } from '#lib/access/scopes';"],
      ['access/scopes.ts', 'export const SCOPES = [];'],
    ]);
    expect(importCircles(files)).toEqual([]);
  });
});

/**
 * Sizes that show the design: a file reads as one concern, a function in one screen. A longer one
 * is split by meaning (named phases, one concern a file), never by moving lines about.
 */
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;
const SIZED = ['lib', 'infra', 'web', 'functions', 'packages'];
/** Generated files, whatever their length. */
const GENERATED = ['web/client/schema.gen.ts'];

/** What is too long in one file: the file itself, or a function (named as a reader finds it). */
function oversized(path: string, source: string): string[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => file.getLineAndCharacterOfPosition(pos).line;
  const found: string[] = [];
  const lines = lineOf(file.end) + (source.endsWith('\n') ? 0 : 1);
  if (lines > MAX_FILE_LINES) found.push(`${path}: ${lines} lines`);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = lineOf(node.getStart(file));
      const length = lineOf(node.end) - start + 1;
      if (length > MAX_FUNCTION_LINES)
        found.push(`${path}:${start + 1} ${functionName(node, file)}: ${length} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** `name`, `Class.method`, `constructor`, or the variable or property a function is assigned to. */
function functionName(node: ts.SignatureDeclaration, file: ts.SourceFile): string {
  const own = node.name?.getText(file);
  const holder = node.parent;
  const named =
    own ??
    (ts.isConstructorDeclaration(node)
      ? 'constructor'
      : ts.isVariableDeclaration(holder) ||
          ts.isPropertyAssignment(holder) ||
          ts.isPropertyDeclaration(holder)
        ? holder.name.getText(file)
        : '(anonymous)');
  const owner = ts.isClassLike(holder) ? holder.name?.getText(file) : undefined;
  return owner ? `${owner}.${named}` : named;
}

/** Every TypeScript source file of the sized folders (dist/ and declarations/ are built, not written). */
function sizedSources(): Map<string, string> {
  const skip = new Set(['node_modules', 'dist', 'declarations']);
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = posix.join(dir, entry.name);
      if (entry.isDirectory()) return skip.has(entry.name) ? [] : walk(path);
      return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
    });
  return new Map(SIZED.flatMap(walk).map((path) => [path, readFileSync(path, 'utf8')]));
}

describe('the sources', () => {
  it(`keep files within ${MAX_FILE_LINES} lines and functions within ${MAX_FUNCTION_LINES}`, () => {
    const sources = sizedSources();
    expect(sources.size).toBeGreaterThan(200);
    const measured = [...sources].filter(([path]) => !GENERATED.includes(path));
    expect(measured.flatMap(([path, source]) => oversized(path, source))).toEqual([]);
  });
});

describe('the size check', () => {
  const body = (lines: number) =>
    Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');

  it('names a function over the limit as a reader finds it: a declaration, a method, an arrow, a constructor', () => {
    const source = [
      `function long() {\n${body(81)}\n}`,
      `export const arrow = () => {\n${body(81)}\n};`,
      `class Stack {\n  constructor() {\n${body(81)}\n  }\n  method() {\n${body(80)}\n  }\n}`,
      `const object = { handler: async function () {\n${body(81)}\n} };`,
    ].join('\n');
    expect(oversized('x.ts', source)).toEqual([
      expect.stringMatching(/^x\.ts: \d+ lines$/),
      'x.ts:1 long: 81 lines',
      'x.ts:82 arrow: 81 lines',
      'x.ts:164 Stack.constructor: 81 lines',
      'x.ts:326 handler: 81 lines',
    ]);
  });

  it('counts a file’s lines as an editor shows them', () => {
    expect(oversized('y.ts', 'const a = 1;\n'.repeat(300))).toEqual([]);
    expect(oversized('y.ts', 'const a = 1;\n'.repeat(301))).toEqual(['y.ts: 301 lines']);
    expect(oversized('y.ts', `${'const a = 1;\n'.repeat(300)}const b = 2;`)).toEqual(['y.ts: 301 lines']);
  });
});

describe('the test files of the tiers that share their workers’ modules', () => {
  it('restore every SDK client they mock (a mock left in place answers the next file’s clients)', () => {
    const files = ['test/unit', 'test/integration', 'test/reliability', 'test/e2e', 'test/browser'].flatMap(
      (dir) =>
        readdirSync(dir)
          .filter((name) => name.endsWith('.test.ts'))
          .map((name) => `${dir}/${name}`),
    );
    const mocking = files.filter((file) =>
      /^import \{[^}]*\bmockClient\b[^}]*\} from 'aws-sdk-client-mock';$/m.test(readFileSync(file, 'utf8')),
    );
    expect(mocking.length).toBeGreaterThan(0);
    const unrestored = mocking.filter((file) => {
      const source = readFileSync(file, 'utf8');
      const mocks = [...source.matchAll(/const (\w+) = mockClient\(/g)].map((m) => m[1]);
      return mocks.length === 0 || mocks.some((name) => !source.includes(`${name}.restore()`));
    });
    expect(unrestored).toEqual([]);
  });
});
