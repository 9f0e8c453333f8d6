/** The OpenAPI document's tags; every route module names one. */
export const API_TAGS = {
  'api-keys': 'A user’s MCP API keys and their history (a user JWT).',
  workspaces:
    'Workspace governance: the keys that reach a workspace, cutting one off, its policy and its history (a user JWT; the workspace’s members, most operations its admins and owners only).',
  'leak-response': 'Killing a leaked key: whoever holds it, or GitHub.',
  'oauth-consent':
    'The consent page of the OAuth authorization server: the person sees an app’s sign-in request and approves or denies it (a user JWT).',
  oauth:
    'The OAuth 2.1 authorization server’s protocol endpoints, which MCP clients call (RFC 8414, 6749, 7591, 7009, 9728): no user JWT, on the issuer’s origin, errors as RFC 6749 JSON.',
} as const;

export type ApiTag = keyof typeof API_TAGS;

/** A size in bytes as KiB or MiB. */
const kib = (bytes: number) => (bytes >= 1 << 20 ? `${bytes / (1 << 20)} MiB` : `${bytes / 1024} KiB`);

/** How a body limit reads in an operation's description. */
export const bodyLimitText = (bytes: number): string =>
  `The body is JSON of at most ${kib(bytes)} (413 \`payload_too_large\` above).`;

/**
 * `10000` as `10,000`. Not `toLocaleString`: its first call loads ICU's locale data, about 15 ms
 * of the cold start of a function whose route description uses it (docs/benchmarks.md).
 */
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

export { kib, thousands };
