import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
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
