import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

it('names only files and folders that exist in the architecture page', () => {
  const page = readFileSync('docs/architecture.md', 'utf8');
  const paths = [...page.matchAll(/`((?:lib|infra|functions|test|web)\/[\w./-]*)`/g)]
    .map((m) => m[1] ?? '')
    .filter((p) => !p.includes('<'));
  expect(paths.length).toBeGreaterThan(10);
  for (const path of paths) expect(existsSync(path), path).toBe(true);
});

it('maps every folder under lib/, infra/ and web/ in the architecture page', () => {
  const page = readFileSync('docs/architecture.md', 'utf8');
  const map = /## Layout\n+```\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
  const folders = ['lib', 'infra', 'web'].flatMap((top) =>
    readdirSync(top, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !`${entry.parentPath}/${entry.name}`.includes('node_modules'))
      .map((entry) => `${relative('.', join(entry.parentPath, entry.name))}/`),
  );
  expect(folders.length).toBeGreaterThan(10);
  expect(folders.filter((folder) => !map.includes(folder))).toEqual([]);
});

it('lists every guard exception of infra/guard.ts in the deployment page, and no other', async () => {
  const { GUARD_EXCEPTIONS } = await import('#infra/guard');
  const page = readFileSync('docs/deploying.md', 'utf8');
  const listed = [...page.matchAll(/^\| `(CT\.[A-Z0-9]+\.PR\.\d+)`/gm)].map((m) => m[1]);
  const controls = Object.values(GUARD_EXCEPTIONS).map((e) => e.control);
  expect(controls.length).toBeGreaterThan(0);
  expect(listed.sort()).toEqual([...controls].sort());
});
