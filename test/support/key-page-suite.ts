import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { KeysClient } from '../../web/client/index.ts';
import { axeSummary, DEMO, demoUser, KeyPage, launchChromium } from './key-page.ts';
import { CALL_LIST_WORKSPACES, presentKey, type RunningService, startService } from './local-service.ts';

/**
 * What the key page's browser test files share (browser.test.ts, key-history-browser.test.ts and
 * cors-browser.test.ts in test/browser): a local service of the file's own and Chromium, and for
 * each test of the key page a person and a page of its own, arranged keys and a leak check when
 * it ends. The files run side by side, each on its own service.
 */
export const WORKSPACE = DEMO.marketing.id;
export const LAPTOP = 'Claude Desktop (laptop)';

/** One person per test (the pictures show who is signed in, so they have names). */
const PEOPLE = [
  'ana',
  'ben',
  'cleo',
  'dana',
  'eli',
  'femi',
  'gus',
  'hana',
  'ivo',
  'jun',
  'kai',
  'lea',
  'milo',
];

export interface KeyPageService {
  base: string;
  browser: Browser;
  /** `list_workspaces` through the MCP endpoint with a key: the status it answers. */
  callMcp(apiKey: string): Promise<number>;
}

/**
 * Starts the file's service and Chromium before its tests and stops them after, with a closing
 * line; the consent page's files build on it (test/support/consent-suite.ts).
 */
export function useKeyPageService(file: string): KeyPageService {
  const started = Date.now();
  let service: RunningService | undefined;
  const shared = {
    callMcp: (apiKey: string) => presentKey(shared.base, apiKey, CALL_LIST_WORKSPACES),
  } as KeyPageService;
  beforeAll(async () => {
    [service, shared.browser] = await Promise.all([
      startService({ DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-browser-')) }),
      launchChromium(),
    ]);
    shared.base = service.url;
  });
  afterAll(async () => {
    await shared.browser?.close();
    await service?.stop();
    console.log(
      `${file}: ${((Date.now() - started) / 1000).toFixed(1)} s in all; axe: ${axeSummary.join('; ')}`,
    );
  });
  return shared;
}

/** What each test of the key page is given: its page and the person signed in on it. */
export interface KeyPageTest {
  kp: KeyPage;
  page: Page;
  user: string;
}

type ArrangedScope = 'svc.forms.read' | 'svc.forms.generate';

/**
 * Opens a page and names a person for each test of the enclosing block (`current()` gives them to
 * the test), and checks when the test ends that none of the test's secrets reached the page.
 */
export function useKeyPagePerTest(shared: KeyPageService) {
  let tests = 0;
  let current: KeyPageTest;

  beforeEach(async () => {
    const user = `${PEOPLE[tests % PEOPLE.length]}${tests >= PEOPLE.length ? tests : ''}`;
    tests += 1;
    const kp = await KeyPage.open(shared.browser, shared.base);
    current = { kp, page: kp.page, user };
  });

  afterEach(async () => {
    expect(current.kp.secrets.size).toBeGreaterThan(0); // at least the login: the check below has something to find
    await current.kp.expectNoLeaks();
    await current.kp.close();
  });

  /** Arranges a key for this test's user through the typed client; its value is a secret of the test. */
  async function arrangeKey(
    name = LAPTOP,
    scopes: ArrangedScope[] = ['svc.forms.read', 'svc.forms.generate'],
  ): Promise<{ api: KeysClient; id: string; apiKey: string }> {
    const { kp, user } = current;
    const { api, token } = await demoUser(shared.base, user);
    kp.secrets.add(token);
    const created = await api.create({ name, workspace_ids: [WORKSPACE], scopes, expires_in_days: 45 });
    kp.secrets.add(created.api_key);
    return { api, id: created.metadata.id, apiKey: created.api_key };
  }

  return {
    /** This test's page and person. */
    current: (): KeyPageTest => current,
    arrangeKey,
    /** A key that was created, rotated, and whose replacement was revoked: four events in its lineage. */
    async arrangeRevokedLineage(): Promise<void> {
      const { api, id } = await arrangeKey();
      const rotated = await api.rotate(id);
      current.kp.secrets.add(rotated.api_key);
      await api.revoke(rotated.metadata.id);
    },
    showAll: (on: boolean) => current.kp.keys().getByLabel('Show revoked and expired keys').setChecked(on),
  };
}
