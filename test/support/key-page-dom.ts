import type { Locator, Page } from 'playwright-core';

/** Where in the page a string appears: the DOM with every shadow root and field value, storage, URL, cookies. */
export async function tracesOf(page: Page, needle: string): Promise<string[]> {
  return page.evaluate((text) => {
    interface DomNode {
      nodeType: number;
      nodeValue: string | null;
      childNodes: ArrayLike<DomNode>;
      shadowRoot?: DomNode | null;
      attributes?: ArrayLike<{ name: string; value: string }>;
      value?: unknown;
      localName?: string;
    }
    type Store = { length: number; key(i: number): string | null; getItem(k: string): string | null };
    const w = globalThis as unknown as {
      document: { documentElement: DomNode; cookie: string; title: string };
      localStorage: Store;
      sessionStorage: Store;
      location: { href: string };
      history: { state: unknown };
    };
    const found: string[] = [];
    const visit = (node: DomNode) => {
      if (node.nodeValue?.includes(text)) found.push('DOM text');
      for (const attr of Array.from(node.attributes ?? [])) {
        if (attr.value.includes(text)) found.push(`attribute ${attr.name} of <${node.localName}>`);
      }
      if (typeof node.value === 'string' && node.value.includes(text))
        found.push(`value of <${node.localName}>`);
      if (node.shadowRoot) visit(node.shadowRoot);
      for (const child of Array.from(node.childNodes)) visit(child);
    };
    visit(w.document.documentElement);
    for (const [name, store] of [
      ['localStorage', w.localStorage],
      ['sessionStorage', w.sessionStorage],
    ] as const) {
      for (let i = 0; i < store.length; i++) {
        const key = store.key(i) ?? '';
        if (key.includes(text) || store.getItem(key)?.includes(text)) found.push(name);
      }
    }
    if (w.location.href.includes(text)) found.push('URL');
    if (w.document.cookie.includes(text)) found.push('cookie');
    if (JSON.stringify(w.history.state ?? null).includes(text)) found.push('history state');
    return found;
  }, needle);
}

/** The focused element, looking through shadow roots: its id, or its role and text. */
export function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    type El = {
      shadowRoot: { activeElement: El | null } | null;
      id: string;
      localName: string;
      textContent: string;
    };
    let el = (globalThis as unknown as { document: { activeElement: El | null } }).document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return el ? el.id || `${el.localName}:${el.textContent.trim()}` : '';
  });
}

/** What a person reads of an element: its rendered text, one space between its lines and parts. */
export async function textOf(locator: Locator): Promise<string> {
  return (await locator.innerText()).replace(/\s+/g, ' ').trim();
}

/** Loads the key page's list again (`refresh()`, as the host page would after a change elsewhere). */
export async function reloadKeys(page: Page): Promise<void> {
  await page.evaluate(async () => {
    type Keys = { refresh(): Promise<void>; updateComplete: Promise<unknown> };
    const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document;
    const element = doc.querySelector('svc-mcp-api-keys') as Keys | null;
    await element?.refresh();
    await element?.updateComplete;
  });
}
