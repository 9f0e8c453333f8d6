import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLinks, linksOf } from '#test/support/doc-links';

const PAGES = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('the README and docs/', () => {
  it('have no relative link or anchor that does not resolve', () => {
    expect(brokenLinks(PAGES)).toEqual([]);
  });

  it('send each audience from the README to its page in one click', () => {
    const linked = linksOf(readFileSync('README.md', 'utf8')).map((link) => link.split('#')[0]);
    for (const page of [
      'using-keys',
      'dashboards',
      'api',
      'mcp-servers',
      'deploying',
      'security',
      'architecture',
    ]) {
      expect(linked).toContain(`docs/${page}.md`);
    }
  });
});

describe('the link check', () => {
  const pages: Record<string, string> = {
    'README.md': '# Title\n\nSee [the API](docs/api.md#errors) and [setup](#set-up).\n\n## Set-up\n',
    'docs/api.md':
      '# API\n\n## Errors\n\nBack to [the start](../README.md#title). `[not a link](nowhere.md)`\n',
  };
  const read = (path: string) => pages[path];

  it('accepts links whose file and heading exist', () => {
    expect(brokenLinks(Object.keys(pages), read)).toEqual([]);
  });

  it('reports a link to a missing page and one to a missing heading', () => {
    const broken: Record<string, string> = {
      ...pages,
      'README.md': '# Title\n\n[gone](docs/gone.md) [typo](docs/api.md#erors)\n',
    };
    expect(brokenLinks(['README.md'], (path) => broken[path])).toEqual([
      'README.md: docs/gone.md (no such file)',
      'README.md: docs/api.md#erors (no such heading)',
    ]);
  });

  it('makes anchors as GitHub does: code spans keep their text, duplicates are numbered', () => {
    expect([...anchorsOf('## Reusing the key authorizer: `McpKeyAuthorizer`\n## Notes\n## Notes\n')]).toEqual(
      ['reusing-the-key-authorizer-mcpkeyauthorizer', 'notes', 'notes-1'],
    );
  });
});
