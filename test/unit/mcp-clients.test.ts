import { readFileSync, writeFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { KEY_PATTERN, KEY_SCANNER_PATTERN } from '#lib/keys/format';
import {
  KEY_PLACEHOLDER,
  type McpClientConfig,
  mcpClientConfigs,
  mcpClientsMarkdown,
  OAUTH_ONLY_CLIENTS,
  shellLine,
} from '../../web/client/mcp-clients.ts';

const URL_ = 'https://mcp.example.com/mcp';
// A key of the right shape (contract §1); no service issued it.
const KEY = `svc_mcp_v1_${'0123456789'.repeat(7)}A`;
const ENV = 'SVC_MCP_API_KEY';

const parse = (c: McpClientConfig): Record<string, unknown> =>
  c.format === 'toml' ? parseToml(c.text) : JSON.parse(c.text);
const configs = mcpClientConfigs({ url: URL_, apiKey: KEY });
// biome-ignore lint/suspicious/noExplicitAny: each client's configuration has a shape of its own
type Shape = any;
const byId = Object.fromEntries(configs.map((c) => [c.id, parse(c)])) as Record<string, Shape>;

describe('each client configuration (contract §7)', () => {
  it('covers every client of the table, each parsing as its format', () => {
    expect(configs.map((c) => c.name)).toEqual([
      'Claude Code',
      'Claude Desktop',
      'Cursor',
      'VS Code',
      'Windsurf',
      'Gemini CLI',
      'Codex CLI',
      'Zed',
      'Cline',
    ]);
    for (const c of configs) expect(() => parse(c), c.name).not.toThrow();
    expect(configs.find((c) => c.id === 'codex-cli')?.format).toBe('toml');
  });

  it('holds no literal key where the client reads the environment or prompts for it', () => {
    expect(KEY).toMatch(KEY_PATTERN);
    const reading = configs.filter((c) => c.keyFrom !== 'file');
    expect(reading.map((c) => c.id)).toEqual([
      'claude-code',
      'cursor',
      'vscode',
      'windsurf',
      'gemini-cli',
      'codex-cli',
    ]);
    for (const c of reading) {
      expect(c.text, c.name).not.toContain(KEY);
      expect(c.text, c.name).not.toMatch(new RegExp(KEY_SCANNER_PATTERN));
    }
    for (const c of configs.filter((x) => x.keyFrom === 'environment')) expect(c.text, c.name).toContain(ENV);
  });

  it('gives each client the fields its documentation names', () => {
    expect(byId['claude-code'].mcpServers.svc).toEqual({
      type: 'http',
      url: URL_,
      headers: { Authorization: `Bearer \${${ENV}}` },
    });
    expect(byId.cursor.mcpServers.svc).toEqual({
      url: URL_,
      headers: { Authorization: `Bearer \${env:${ENV}}` },
    });
    expect(byId.windsurf.mcpServers.svc).toEqual({
      serverUrl: URL_,
      headers: { Authorization: `Bearer \${env:${ENV}}` },
    });
    expect(byId['gemini-cli'].mcpServers.svc).toEqual({
      httpUrl: URL_,
      headers: { Authorization: `Bearer $${ENV}` },
    });
    expect(byId['codex-cli']).toEqual({ mcp_servers: { svc: { url: URL_, bearer_token_env_var: ENV } } });
    const vscode = byId.vscode;
    const inputId = /^Bearer \$\{input:(.+)\}$/.exec(vscode.servers.svc.headers.Authorization)?.[1];
    expect(vscode.servers.svc).toMatchObject({ type: 'http', url: URL_ });
    expect(vscode.inputs).toEqual([
      expect.objectContaining({ type: 'promptString', id: inputId, password: true }),
    ]);
  });

  it('puts the key only into the files of clients that cannot read it elsewhere', () => {
    expect(byId['claude-desktop'].mcpServers.svc).toEqual({
      command: 'npx',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote's own syntax
      args: ['-y', 'mcp-remote', URL_, '--header', 'Authorization:${AUTH_HEADER}'],
      env: { AUTH_HEADER: `Bearer ${KEY}` },
    });
    expect(byId.zed.context_servers.svc).toEqual({ url: URL_, headers: { Authorization: `Bearer ${KEY}` } });
    expect(byId.cline.mcpServers.svc).toMatchObject({
      url: URL_,
      headers: { Authorization: `Bearer ${KEY}` },
    });
    for (const c of configs.filter((x) => x.keyFrom === 'file'))
      expect(c.note).toMatch(/chmod 600.*never commit/);
    // Without a key, a placeholder stands in (the docs page, the picker's display).
    const bare = mcpClientConfigs({ url: URL_ }).filter((c) => c.keyFrom === 'file');
    for (const c of bare) expect(c.text).toContain(KEY_PLACEHOLDER);
  });

  it('follows the variable and server names given, and refuses names a client could not read', () => {
    const custom = mcpClientConfigs({ url: URL_, envVar: 'ACME_KEY', serverName: 'acme-forms' });
    const codex = parseToml(custom.find((c) => c.id === 'codex-cli')?.text ?? '') as Record<string, Shape>;
    expect(codex.mcp_servers['acme-forms']).toEqual({ url: URL_, bearer_token_env_var: 'ACME_KEY' });
    for (const c of custom.filter((x) => x.keyFrom === 'environment')) expect(c.text).not.toContain(ENV);
    expect(() => mcpClientConfigs({ url: URL_, envVar: 'A KEY' })).toThrow(/environment variable/);
    expect(() => mcpClientConfigs({ url: URL_, serverName: 'a.b' })).toThrow(/server name/);
    expect(() => mcpClientConfigs({ url: 'not a url' })).toThrow(/not a URL/);
  });

  it('offers the shell line that sets the variable', () => {
    expect(shellLine(ENV, KEY)).toBe(`export ${ENV}='${KEY}'`);
    expect(shellLine()).toBe(`export ${ENV}='${KEY_PLACEHOLDER}'`);
    expect(() => shellLine('X', "a'b")).toThrow();
  });

  it('names ChatGPT and claude.ai as accepting no API key', () => {
    expect(OAUTH_ONLY_CLIENTS.map((c) => c.name.split(' ')[0])).toEqual(['ChatGPT', 'claude.ai']);
    for (const c of OAUTH_ONLY_CLIENTS) expect(c.why).toMatch(/OAuth only/);
  });
});

describe('docs/mcp-clients.md', () => {
  const START = '<!-- generated: mcp-clients -->\n';
  const END = '<!-- end generated: mcp-clients -->';

  it('lists exactly what the module generates for its example endpoint', () => {
    const page = readFileSync('docs/mcp-clients.md', 'utf8');
    const [before, rest = ''] = page.split(START);
    const [current = '', after = ''] = rest.split(END);
    const expected = mcpClientsMarkdown({ url: URL_ });
    if (process.env.UPDATE_DOCS && current !== expected) {
      writeFileSync('docs/mcp-clients.md', `${before}${START}${expected}${END}${after}`);
    }
    expect(current).toBe(expected);
    for (const c of configs) expect(current).toContain(`### ${c.name}`);
    expect(page).toContain('ChatGPT');
    expect(page).toContain('claude.ai');
  });
});
