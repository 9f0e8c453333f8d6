/**
 * The configuration of each MCP client a person is likely to have (contract §7, "Configuration
 * for each client"), generated from the endpoint URL and the environment variable's name. One
 * source for the key page's picker, docs/mcp-clients.md and the tests that run real clients.
 * No runtime dependency: it is bundled into the key page.
 */

/** The environment variable the key page and the docs tell people to set. */
export const DEFAULT_ENV_VAR = 'SVC_MCP_API_KEY';
/** The name the server is given in each client's configuration. */
export const DEFAULT_SERVER_NAME = 'svc';
/** Stands for the key where a configuration must hold it and none was given. */
export const KEY_PLACEHOLDER = '<your MCP API key>';

export type McpClientId =
  | 'claude-code'
  | 'claude-desktop'
  | 'cursor'
  | 'vscode'
  | 'windsurf'
  | 'gemini-cli'
  | 'codex-cli'
  | 'zed'
  | 'cline';

/**
 * Where the client finds the key: the environment variable, a secret prompt of its own, or the
 * configuration file itself (clients that document no way to read the environment).
 */
export type KeySource = 'environment' | 'prompt' | 'file';

export interface McpClientConfig {
  id: McpClientId;
  /** The client's name as people know it. */
  name: string;
  /** Where the configuration goes. */
  file: string;
  format: 'json' | 'toml';
  /** The configuration to paste (merged into the file's existing content). */
  text: string;
  keyFrom: KeySource;
  /** One or two sentences a person needs besides the text. */
  note: string;
}

export interface McpClientConfigOptions {
  /** The MCP endpoint URL. */
  url: string;
  /** @default SVC_MCP_API_KEY */
  envVar?: string;
  /** @default svc */
  serverName?: string;
  /** Written into the configurations of clients that read no environment; else a placeholder. */
  apiKey?: string;
}

/**
 * Clients that accept only OAuth: no pasted key can work, so no configuration is offered; they
 * connect by signing in (docs/oauth.md) and show up as connected apps beside the keys.
 */
export const OAUTH_ONLY_CLIENTS = [
  {
    name: 'ChatGPT',
    why: 'its connectors sign in with OAuth only and accept no API key: add the MCP server URL with no key, sign in when ChatGPT asks, and approve it on the consent page; it then shows here as a connected app.',
  },
  {
    name: 'claude.ai (Claude’s hosted connectors, web and mobile)',
    why: 'custom connectors sign in with OAuth only and accept no API key: add the MCP server URL as a custom connector, connect, and approve it on the consent page; it then shows here as a connected app. Claude Desktop and Claude Code take the key as shown here.',
  },
] as const;

const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SERVER_NAME = /^[A-Za-z0-9_-]+$/;
const json = (value: unknown) => JSON.stringify(value, null, 2);
/** A TOML basic string: JSON's escapes are TOML's for these values. */
const tomlString = (value: string) => JSON.stringify(value);

const KEEP_PRIVATE =
  'This file holds the key itself: keep it readable only by you (chmod 600), never commit or share it, and update it when you rotate the key.';

/** What every client's configuration is written from. */
interface ConfigInputs {
  url: string;
  envVar: string;
  /** The server's name in the configuration. */
  name: string;
  /** The Authorization header's value, for the clients whose file holds the key. */
  bearer: string;
  /** The sentence a client reading the environment ends its note with. */
  fromEnv: string;
}

const claudeCode = ({ url, envVar, name, fromEnv }: ConfigInputs): McpClientConfig => ({
  id: 'claude-code',
  name: 'Claude Code',
  file: '.mcp.json at the root of your project',
  format: 'json',
  text: json({
    mcpServers: { [name]: { type: 'http', url, headers: { Authorization: `Bearer \${${envVar}}` } } },
  }),
  keyFrom: 'environment',
  note: `Claude Code expands \${${envVar}} when it starts, so the file holds only the variable's name and may be committed. ${fromEnv}`,
});

const claudeDesktop = ({ url, name, bearer }: ConfigInputs): McpClientConfig => ({
  id: 'claude-desktop',
  name: 'Claude Desktop',
  file: 'claude_desktop_config.json (Settings → Developer → Edit Config)',
  format: 'json',
  text: json({
    mcpServers: {
      [name]: {
        command: 'npx',
        // mcp-remote expands ${AUTH_HEADER} from its env block: a space in args breaks on some hosts.
        // biome-ignore lint/suspicious/noTemplateCurlyInString: expanded by mcp-remote, not here
        args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${AUTH_HEADER}'],
        env: { AUTH_HEADER: bearer },
      },
    },
  }),
  keyFrom: 'file',
  note: `Claude Desktop reaches a remote server only through the mcp-remote bridge (Node.js needed), and it does not see your shell's variables. ${KEEP_PRIVATE}`,
});

const cursor = ({ url, envVar, name, fromEnv }: ConfigInputs): McpClientConfig => ({
  id: 'cursor',
  name: 'Cursor',
  file: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
  format: 'json',
  text: json({ mcpServers: { [name]: { url, headers: { Authorization: `Bearer \${env:${envVar}}` } } } }),
  keyFrom: 'environment',
  note: fromEnv,
});

const vsCode = ({ url, name }: ConfigInputs): McpClientConfig => ({
  id: 'vscode',
  name: 'VS Code',
  file: '.vscode/mcp.json in your workspace (or the user mcp.json: MCP: Open User Configuration)',
  format: 'json',
  text: json({
    servers: {
      [name]: { type: 'http', url, headers: { Authorization: `Bearer \${input:${name}-mcp-api-key}` } },
    },
    inputs: [
      {
        type: 'promptString',
        id: `${name}-mcp-api-key`,
        description: 'MCP API key (svc_mcp_v1_…)',
        password: true,
      },
    ],
  }),
  keyFrom: 'prompt',
  note: 'VS Code asks for the key the first time it starts the server and keeps it in its secret storage; the file holds no key.',
});

const windsurf = ({ url, envVar, name, fromEnv }: ConfigInputs): McpClientConfig => ({
  id: 'windsurf',
  name: 'Windsurf',
  file: '~/.codeium/windsurf/mcp_config.json',
  format: 'json',
  text: json({
    mcpServers: { [name]: { serverUrl: url, headers: { Authorization: `Bearer \${env:${envVar}}` } } },
  }),
  keyFrom: 'environment',
  note: fromEnv,
});

const geminiCli = ({ url, envVar, name, fromEnv }: ConfigInputs): McpClientConfig => ({
  id: 'gemini-cli',
  name: 'Gemini CLI',
  file: '~/.gemini/settings.json (or .gemini/settings.json in a project)',
  format: 'json',
  text: json({
    mcpServers: { [name]: { httpUrl: url, headers: { Authorization: `Bearer $${envVar}` } } },
  }),
  keyFrom: 'environment',
  note: `Gemini CLI replaces $${envVar} in its settings with the variable's value. ${fromEnv}`,
});

const codexCli = ({ url, envVar, name, fromEnv }: ConfigInputs): McpClientConfig => ({
  id: 'codex-cli',
  name: 'Codex CLI',
  file: '~/.codex/config.toml',
  format: 'toml',
  text: `[mcp_servers.${name}]\nurl = ${tomlString(url)}\nbearer_token_env_var = ${tomlString(envVar)}\n`,
  keyFrom: 'environment',
  note: `Codex sends the value of ${envVar} as the bearer token. ${fromEnv}`,
});

const zed = ({ url, name, bearer }: ConfigInputs): McpClientConfig => ({
  id: 'zed',
  name: 'Zed',
  file: '~/.config/zed/settings.json',
  format: 'json',
  text: json({ context_servers: { [name]: { url, headers: { Authorization: bearer } } } }),
  keyFrom: 'file',
  note: `Zed documents no way to read the key from the environment. ${KEEP_PRIVATE}`,
});

const cline = ({ url, name, bearer }: ConfigInputs): McpClientConfig => ({
  id: 'cline',
  name: 'Cline',
  file: 'cline_mcp_settings.json (MCP Servers → Configure → Configure MCP Servers)',
  format: 'json',
  text: json({
    mcpServers: { [name]: { type: 'streamableHttp', url, headers: { Authorization: bearer } } },
  }),
  keyFrom: 'file',
  note: `Cline documents no way to read the key from the environment. ${KEEP_PRIVATE}`,
});

/** Every client, in the order of contract §7's table: each writes its configuration from the inputs. */
const CLIENTS: readonly ((inputs: ConfigInputs) => McpClientConfig)[] = [
  claudeCode,
  claudeDesktop,
  cursor,
  vsCode,
  windsurf,
  geminiCli,
  codexCli,
  zed,
  cline,
];

/** Every client's configuration, in the order of contract §7's table. */
export function mcpClientConfigs(options: McpClientConfigOptions): McpClientConfig[] {
  const { url, envVar = DEFAULT_ENV_VAR, serverName: name = DEFAULT_SERVER_NAME } = options;
  if (!ENV_VAR_NAME.test(envVar)) throw new Error(`not an environment variable name: ${envVar}`);
  if (!SERVER_NAME.test(name)) throw new Error(`a server name is letters, digits, - and _: ${name}`);
  if (!URL.canParse(url)) throw new Error(`not a URL: ${url}`);
  const bearer = `Bearer ${options.apiKey ?? KEY_PLACEHOLDER}`;
  const fromEnv = `Start the client from a shell where ${envVar} is set (see the line above).`;
  return CLIENTS.map((client) => client({ url, envVar, name, bearer, fromEnv }));
}

/** The POSIX shell line that sets the variable (single-quoted: a key has no quote). */
export function shellLine(envVar: string = DEFAULT_ENV_VAR, apiKey: string = KEY_PLACEHOLDER): string {
  if (!ENV_VAR_NAME.test(envVar)) throw new Error(`not an environment variable name: ${envVar}`);
  if (apiKey.includes("'")) throw new Error('an API key has no quote');
  return `export ${envVar}='${apiKey}'`;
}

/** The Markdown list of every client, as docs/mcp-clients.md carries it (a test keeps them equal). */
export function mcpClientsMarkdown(options: McpClientConfigOptions): string {
  const envVar = options.envVar ?? DEFAULT_ENV_VAR;
  const sections = mcpClientConfigs(options).map(
    (c) =>
      `### ${c.name}\n\nFile: ${c.file}. The key comes from ${
        c.keyFrom === 'environment'
          ? `the environment variable \`${envVar}\``
          : c.keyFrom === 'prompt'
            ? 'a secret prompt'
            : 'the file itself'
      }.\n\n\`\`\`${c.format}\n${c.text.trimEnd()}\n\`\`\`\n\n${c.note}\n`,
  );
  const oauthOnly = OAUTH_ONLY_CLIENTS.map((c) => `- **${c.name}**: ${c.why}`).join('\n');
  return [
    `Set the variable first (in the shell you start the client from, or your shell's profile):\n\n\`\`\`sh\n${shellLine(envVar)}\n\`\`\`\n`,
    ...sections,
    `### Clients that cannot use an API key\n\n${oauthOnly}\n`,
  ].join('\n');
}
