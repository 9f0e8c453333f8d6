import {
  Client,
  StreamableHTTPClientTransport,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';

/**
 * MCP clients that call tools of a running service's /mcp (contract §19): the official SDK v2
 * client in either protocol era (and, for what it shows of a refusal at connect, in each of its
 * version negotiation modes), and a raw JSON-RPC request with whatever headers a test sends.
 */

/**
 * The era a client speaks: `legacy`, the SDK's default (a 2025 client: `initialize`, and no
 * `Mcp-Name` header), or the 2026-07-28 revision, pinned (`Mcp-Method` and `Mcp-Name` on each
 * request, which the key authorizer reads).
 */
export type Era = 'legacy' | '2026-07-28';

export const ERAS: Era[] = ['legacy', '2026-07-28'];

/** A connected SDK client, and the `Mcp-Name` header of each HTTP request it sent (null: none) and its status. */
export interface ToolClient {
  client: Client;
  sentNames: (string | null)[];
  statuses: number[];
}

/** The official SDK v2 client, connected to `base`'s /mcp with `apiKey` as its bearer. */
export async function connectClient(base: string, apiKey: string, era: Era): Promise<ToolClient> {
  const sentNames: (string | null)[] = [];
  const statuses: number[] = [];
  const client = new Client(
    { name: 'tools-e2e', version: '1.0.0' },
    era === 'legacy' ? {} : { versionNegotiation: { mode: { pin: era } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
      fetch: async (url, init) => {
        sentNames.push(new Headers(init?.headers).get('mcp-name'));
        const response = await fetch(url, init);
        statuses.push(response.status);
        return response;
      },
    }),
  );
  return { client, sentNames, statuses };
}

/** Runs `use` with a connected client, closing it after. */
export async function withClient<T>(
  base: string,
  apiKey: string,
  era: Era,
  use: (connected: ToolClient) => Promise<T>,
): Promise<T> {
  const connected = await connectClient(base, apiKey, era);
  try {
    return await use(connected);
  } finally {
    await connected.client.close();
  }
}

/** The tool names `tools/list` answers the SDK client. */
export const listedNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

/** What a raw MCP request was answered. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever JSON-RPC the endpoint answered
  body: any;
}

/** One `tools/call` of `name` with `args` as a script sends it, with `headers` besides the key. */
export async function rawToolCall(
  base: string,
  apiKey: string,
  name: string,
  args: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const response = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** The headers a 2026-07-28 client sends with a `tools/call` of `name`. */
export const callHeaders = (name: string) => ({ 'mcp-method': 'tools/call', 'mcp-name': name });

/** The official SDK v2 client's version negotiation modes: its default, `auto`, and pinned to 2026-07-28. */
const MODES = {
  legacy: 'legacy',
  auto: 'auto',
  'pin 2026-07-28': { pin: '2026-07-28' },
} satisfies Record<string, VersionNegotiationMode>;

/** How a client's error shows: its message, its HTTP status and the body it kept (`data.text`). */
export interface ShownError {
  message: string;
  status?: number;
  text?: string;
}

/** The SDK v2 client in `mode`, connecting to `mcpUrl` with `apiKey`; the status of each request it sent. */
export function sdkClient(mcpUrl: string, apiKey: string, mode: VersionNegotiationMode) {
  const statuses: number[] = [];
  const client = new Client({ name: 'tools-e2e', version: '1.0.0' }, { versionNegotiation: { mode } });
  const connected = client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        statuses.push(response.status);
        return response;
      },
    }),
  );
  return { client, statuses, connected };
}

/** What the SDK v2 client's error shows, as an application built on it has it. */
export function shownBy(err: unknown): ShownError {
  const { message, status, data } = err as Error & { status?: number; data?: { text?: string } };
  return {
    message,
    ...(status !== undefined && { status }),
    ...(data?.text !== undefined && { text: data.text }),
  };
}

/**
 * What the SDK v2 client shows, in each of its modes, when its first request at `mcpUrl` is
 * refused (`connected` when it connects), with the status of each request it sent.
 */
export async function connectRefusals(mcpUrl: string, apiKey: string) {
  const shown: Record<string, (ShownError | { connected: true }) & { statuses: number[] }> = {};
  for (const [name, mode] of Object.entries(MODES)) {
    const { client, statuses, connected } = sdkClient(mcpUrl, apiKey, mode);
    const outcome = await connected.then(() => ({ connected: true as const }), shownBy);
    await client.close();
    shown[name] = { ...outcome, statuses };
  }
  return shown;
}
