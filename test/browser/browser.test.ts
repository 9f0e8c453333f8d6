import { describe, expect, it } from 'vitest';
import { focused, tracesOf } from '#test/support/key-page';
import { LAPTOP, useKeyPagePerTest, useKeyPageService } from '#test/support/key-page-suite';

/**
 * The key page at / of `npm start` in a real browser, as a person uses it: by role and label, with
 * the keyboard, and scanned by axe-core. Each test signs in its own user on its own page and
 * arranges the keys it needs through the typed client; `npm run screenshots` refreshes the
 * pictures in docs/screenshots. This file: signing in, creating, listing, rotating and revoking a
 * key, and the page's own headers; key-history-browser.test.ts the rest of the page, and
 * cors-browser.test.ts the page embedded from another origin.
 */
const shared = useKeyPageService('browser tests');
const { callMcp } = shared;

describe('the key page at / of npm start', () => {
  // A person and a page of their own for each test: nothing one test does is seen by another.
  const on = useKeyPagePerTest(shared);
  const { arrangeKey, arrangeRevokedLineage, showAll } = on;

  it('signs a person in with the dev issuer and shows their (empty) key list', async () => {
    const { kp, page, user } = on.current();
    await page.getByRole('heading', { name: 'Dev sign-in' }).waitFor();
    await kp.expectAccessible('sign-in');
    await kp.signIn(user);
    await kp.keys().getByText('No keys yet').waitFor();
    await kp.expectAccessible('empty list');
  });

  it('creates a key and shows it once, with a copy button and a client configuration', async () => {
    const { kp, page, user } = on.current();
    await kp.signIn(user);
    const dialog = await kp.fillCreate(LAPTOP, ['Acme Marketing'], ['Read', 'Generate'], 45);
    // Each scope says what it allows and, from the API's scope/role table, the role it needs.
    const scopeHints = await dialog
      .getByRole('group', { name: 'Scopes' })
      .getByRole('paragraph')
      .allInnerTexts();
    expect(scopeHints).toEqual([
      'List workspaces and forms, read drafts.',
      'Create forms and replace drafts (needs editor).',
      'AI-generated form previews (needs editor).',
    ]);
    await kp.screenshot('create-key');
    await kp.expectAccessible('create dialog');
    await dialog.getByRole('button', { name: 'Create key' }).click();

    const shown = page.getByRole('dialog', { name: 'Copy your new key' });
    await shown.getByText('This is the only time the key is shown').waitFor();
    const apiKey = await kp.takeShownKey(/Copy your new key/);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    await shown.getByRole('status').getByText('Key copied.').waitFor();
    const clipboard = () =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText();
    expect(await page.evaluate(clipboard)).toBe(apiKey);
    const config =
      (await shown.getByRole('group', { name: 'Configuration for Claude Code' }).textContent()) ?? '';
    expect(JSON.parse(config)).toEqual({
      mcpServers: {
        svc: {
          type: 'http',
          url: `${shared.base}/mcp`,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands the variable, not us
          headers: { Authorization: 'Bearer ${SVC_MCP_API_KEY}' },
        },
      },
    });
    await kp.screenshot('key-shown-once');
    await kp.expectAccessible('key shown once');
    expect(await callMcp(apiKey)).toBe(200); // the key shown is the real one
    await kp.done();
  });

  it('leaves no trace of the key once the dialog is closed, and returns focus to Create', async () => {
    const { kp, page, user } = on.current();
    await kp.signIn(user);
    const dialog = await kp.fillCreate('Laptop', ['Acme Marketing']);
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const apiKey = await kp.takeShownKey(/Copy your new key/);
    await kp.done();
    await expect.poll(() => focused(page)).toBe('create');
    // The whole key and any long piece of it; afterEach checks the console and request URLs too.
    for (const needle of [apiKey, apiKey.slice(20, 60)]) expect(await tracesOf(page, needle)).toEqual([]);
  });

  it('lists a key: name, hint, scopes, workspaces, status, expiry and last use', async () => {
    const { kp, user } = on.current();
    const { apiKey } = await arrangeKey();
    expect(await callMcp(apiKey)).toBe(200);
    await kp.signIn(user);
    await kp.row('Claude Desktop').waitFor();
    const cells = await kp.row('Claude Desktop').getByRole('cell').allInnerTexts();
    const [hint, scopes, workspaces, status, expires, lastUsed] = cells.map((c) =>
      c.replace(/\s+/g, ' ').trim(),
    );
    expect(hint).toBe(`svc_mcp_v1_…${apiKey.slice(-4)}`);
    expect(scopes).toBe('svc.forms.read svc.forms.generate Tools: every tool its scopes allow');
    expect(workspaces).toBe('Acme Marketing');
    expect(status).toBe('Active');
    expect(Date.parse(expires ?? '')).toBeGreaterThan(Date.now() + 44 * 86_400_000);
    expect(lastUsed).not.toBe('Never'); // the MCP call above
    await kp.screenshot('key-list');
    await kp.expectAccessible('key list');
  });

  it('rotates after a confirmation and shows the replacement once; the old value stops working', async () => {
    const { kp, page, user } = on.current();
    const { apiKey } = await arrangeKey();
    await kp.signIn(user);
    await kp
      .row('Claude Desktop')
      .getByRole('button', { name: /^Rotate/ })
      .click();
    const confirm = page.getByRole('alertdialog', { name: /Rotate “Claude Desktop \(laptop\)”\?/ });
    await confirm.getByText('The current key stops working at once').waitFor();
    await confirm.getByRole('button', { name: 'Rotate key' }).click();
    const replacement = await kp.takeShownKey(/Copy your replacement key/);
    expect(replacement).not.toBe(apiKey);
    await kp.done();
    expect(await callMcp(apiKey)).toBe(401);
    expect(await callMcp(replacement)).toBe(200);
    await kp.row(`…${replacement.slice(-4)}`).waitFor();
    expect(await tracesOf(page, replacement)).toEqual([]);
  });

  it('revokes only after a confirmation', async () => {
    const { kp, page, user } = on.current();
    await arrangeKey();
    await kp.signIn(user);
    const revoke = kp.row('Claude Desktop').getByRole('button', { name: /^Revoke/ });
    await revoke.click();
    const confirm = page.getByRole('alertdialog', { name: /Revoke “Claude Desktop \(laptop\)”\?/ });
    await confirm.getByText('This can’t be undone').waitFor();
    await kp.screenshot('revoke-confirm');
    await kp.expectAccessible('revoke confirmation');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await kp.row('Claude Desktop').getByText('Active', { exact: true }).count()).toBe(1);

    await revoke.click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    const notice = kp.keys().getByRole('status');
    await notice.getByText('Key “Claude Desktop (laptop)” revoked.').waitFor();
    // On screen, not only for screen readers: the row is gone, and the page says why.
    expect((await notice.boundingBox())?.height).toBeGreaterThan(16);
    await kp.keys().getByText('No keys yet').waitFor();
    await showAll(true);
    await kp.row(/Claude Desktop.*Revoked/).waitFor();
  });

  it('tells a rotated key from a revoked one when revoked keys are shown: Rotated names its replacement', async () => {
    const { kp, user } = on.current();
    await arrangeRevokedLineage();
    await kp.signIn(user);
    await showAll(true);
    const replacement = kp.row(/Claude Desktop.*Revoked/);
    await replacement.waitFor();
    const hint = await replacement.getByRole('cell').first().innerText(); // the key's hint
    const rotated = kp.row(/Claude Desktop.*Rotated/);
    expect(await rotated.getByText('Revoked', { exact: true }).count()).toBe(0);
    expect((await rotated.innerText()).replace(/\s+/g, ' ')).toContain(`Rotated Replaced by ${hint.trim()}`);
    await kp.expectAccessible('rotated and revoked keys');
  });
});

describe('the page itself', () => {
  it('is served with a strict Content Security Policy and no referrer', async () => {
    const reply = await fetch(`${shared.base}/`);
    expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(reply.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(reply.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(reply.headers.get('referrer-policy')).toBe('no-referrer');
    const bundle = await fetch(`${shared.base}/assets/svc-mcp-api-keys.js`);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await bundle.text()).toContain('svc-mcp-api-keys');
  });
});
