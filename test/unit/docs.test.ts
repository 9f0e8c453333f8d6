import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

it('names only files and folders that exist in the architecture page', () => {
  const page = readFileSync('docs/architecture.md', 'utf8');
  const paths = [...page.matchAll(/`((?:lib|infra|functions|test|web)\/[\w./-]*)`/g)]
    .map((m) => m[1] ?? '')
    .filter((p) => !p.includes('<'));
  expect(paths.length).toBeGreaterThan(10);
  for (const path of paths) expect(existsSync(path), path).toBe(true);
});
