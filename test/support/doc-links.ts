import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import GithubSlugger from 'github-slugger';

/** Markdown without its fenced code blocks, where a `# x` is not a heading nor `[x](y)` a link. */
const withoutFences = (markdown: string): string => markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '');

/** The anchors GitHub gives a page's headings (its own slugger, duplicates numbered). */
export function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const match of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    // A heading's anchor is made from its text as shown: code spans keep their text.
    anchors.add(slugger.slug((match[1] ?? '').replace(/`/g, '')));
  }
  return anchors;
}

/** The relative links (and images) of a page, with the anchor they name if any. */
export function linksOf(markdown: string): string[] {
  return [
    ...withoutFences(markdown)
      .replace(/`[^`\n]*`/g, '')
      .matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g),
  ]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/**
 * Every relative link of the given pages that does not resolve: a file that is not there, or an
 * anchor that no heading of the target page has. `read` lets a test check pages not on disk.
 */
export function brokenLinks(
  pages: string[],
  read: (path: string) => string | undefined = (path) =>
    existsSync(path) && statSync(path).isFile() ? readFileSync(path, 'utf8') : undefined,
): string[] {
  const broken: string[] = [];
  for (const page of pages) {
    const text = read(page);
    if (text === undefined) {
      broken.push(`${page}: the page itself is missing`);
      continue;
    }
    for (const link of linksOf(text)) {
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)));
      const exists =
        path === '' || read(target) !== undefined || (existsSync(target) && statSync(target).isDirectory());
      if (!exists) {
        broken.push(`${page}: ${link} (no such file)`);
        continue;
      }
      if (anchor !== undefined && target.endsWith('.md')) {
        const targetText = read(target) ?? '';
        if (!anchorsOf(targetText).has(anchor)) broken.push(`${page}: ${link} (no such heading)`);
      }
    }
  }
  return broken;
}
