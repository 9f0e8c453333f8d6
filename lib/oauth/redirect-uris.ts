/**
 * Redirect URIs (contract §15, "Clients"): which ones a client may register, how a presented one
 * is matched against the registered ones, and what the consent page shows of one. Pure functions:
 * registration (DCR and metadata documents), `/oauth/authorize` and the consent request all ask
 * these.
 *
 * What may be registered:
 * - `https` to any host;
 * - `http` only to a loopback host, written `127.0.0.1`, `[::1]` or `localhost` (RFC 8252 §7.3;
 *   the MCP Inspector uses `http://localhost:6274/oauth/callback`), any port, any path;
 * - a private-use scheme (RFC 8252 §7.1). RFC 8252 asks for a reverse-domain scheme
 *   (`com.example.app:`), but the MCP clients people use register short ones (`cursor://`,
 *   `vscode://`), so any other scheme is allowed except the ones a browser handles itself or an
 *   operating system uses to run or fetch something ({@link REFUSED_SCHEMES},
 *   {@link REFUSED_SCHEME_PREFIXES}): a code must reach the client that asked for it, never run as
 *   script in the browser (`javascript:`, `data:`), start a program (`ms-msdt:`, `search-ms:`,
 *   `shell:`), install one (`itms-services:`) nor leave in an e-mail.
 *
 * Every one must be absolute, without a fragment (RFC 6749 §3.1.2), without user information (a
 * `https://chatgpt.com@evil.example/` would show one host and send the code to another), and
 * without spaces, control or invisible characters, nor backslashes (the URL parser would drop or
 * rewrite some silently, so the string registered would not be the one followed).
 */

/** The longest redirect URI that may be registered or presented. */
export const REDIRECT_URI_MAX_LENGTH = 2000;

/** Hosts an `http` redirect URI may name: the loopback interface (RFC 8252 §7.3). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Schemes that are never a private-use redirect (contract §15 revised in turn 5), the one list:
 * - the browser runs or shows them itself: `about`, `blob`, `chrome`, `chrome-extension`, `data`,
 *   `edge`, `filesystem`, `javascript`, `jar`, `moz-extension`, `resource`, `vbscript`,
 *   `view-source`, `wyciwyg`;
 * - the operating system runs, opens or installs something with them: `file`, `shell`, `search`,
 *   `search-ms`, `hcp`, `mk`, `its`, `mhtml`, `microsoft-edge`, `intent`, `x-apple-helpbook`,
 *   `help`, and every `ms-…`, `vnd.ms-…` and `itms…` scheme ({@link REFUSED_SCHEME_PREFIXES});
 * - they open an application that is not the client: `mailto`, `tel`, `sms`, `callto`,
 *   `facetime`, `facetime-audio`, `webcal`;
 * - network protocols other than HTTP: `ftp`, `sftp`, `ssh`, `telnet`, `smb`, `ldap`, `gopher`,
 *   `news`, `nntp`, `ws`, `wss`.
 */
export const REFUSED_SCHEMES: ReadonlySet<string> = new Set([
  'about',
  'blob',
  'callto',
  'chrome',
  'chrome-extension',
  'data',
  'edge',
  'facetime',
  'facetime-audio',
  'file',
  'filesystem',
  'ftp',
  'gopher',
  'hcp',
  'help',
  'intent',
  'its',
  'jar',
  'javascript',
  'ldap',
  'mailto',
  'mhtml',
  'microsoft-edge',
  'mk',
  'moz-extension',
  'news',
  'nntp',
  'resource',
  'search',
  'search-ms',
  'sftp',
  'shell',
  'smb',
  'sms',
  'ssh',
  'tel',
  'telnet',
  'vbscript',
  'view-source',
  'webcal',
  'ws',
  'wss',
  'wyciwyg',
  'x-apple-helpbook',
]);

/** Families of schemes refused whatever follows: Windows' `ms-…` and `vnd.ms-…`, Apple's `itms…`. */
export const REFUSED_SCHEME_PREFIXES: readonly string[] = ['ms-', 'vnd.ms-', 'itms'];

/** Whether a scheme (lower case) may never be a redirect URI's. */
export const isRefusedScheme = (scheme: string): boolean =>
  REFUSED_SCHEMES.has(scheme) || REFUSED_SCHEME_PREFIXES.some((prefix) => scheme.startsWith(prefix));

/** RFC 3986 §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`, then the colon. */
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
/** White space (line separators included), controls (C0, DEL, C1) and invisible formatting. */
const UNSAFE_CHARACTERS = /[\s\p{Cc}\p{Cf}]/u;

/** A redirect URI taken apart, once it parsed. */
interface ParsedRedirect {
  scheme: string;
  url: URL;
}

function parse(uri: string): ParsedRedirect | undefined {
  const scheme = SCHEME.exec(uri)?.[1]?.toLowerCase();
  if (!scheme || !URL.canParse(uri)) return undefined;
  return { scheme, url: new URL(uri) };
}

const isLoopbackHttp = ({ scheme, url }: ParsedRedirect) =>
  scheme === 'http' && LOOPBACK_HOSTS.has(url.hostname);

/**
 * Why `uri` may not be registered as a redirect URI, as a sentence a client developer can act on;
 * undefined when it may. `subject` names the URI in that sentence: the URI itself by default, or
 * for instance `redirect_uris[2]` where the URI must not be echoed (it came from a fetched
 * document).
 */
export function redirectUriProblem(
  uri: string,
  subject = `The redirect URI ${quote(uri)}`,
): string | undefined {
  if (uri.length === 0) return `${subject} is empty.`;
  if (uri.length > REDIRECT_URI_MAX_LENGTH)
    return `${subject} is longer than ${REDIRECT_URI_MAX_LENGTH} characters.`;
  if (UNSAFE_CHARACTERS.test(uri))
    return `${subject} contains spaces, control or invisible characters; percent-encode them.`;
  if (uri.includes('\\')) return `${subject} contains a backslash; use / or percent-encode it.`;
  const parsed = parse(uri);
  if (!parsed) return `${subject} is not an absolute URI (it needs a scheme, such as https://).`;
  const { scheme, url } = parsed;
  if (uri.includes('#')) return `${subject} has a fragment (#…); remove it.`;
  if (url.username || url.password)
    return `${subject} has a user name or password before its host; remove them.`;
  if ((scheme === 'https' || scheme === 'http') && !uri.slice(scheme.length + 1).startsWith('//'))
    return `${subject} must start with ${scheme}:// followed by its host.`;
  if (scheme === 'https') return url.hostname ? undefined : `${subject} has no host.`;
  if (scheme === 'http')
    return isLoopbackHttp(parsed)
      ? undefined
      : `${subject} uses http to a host other than the loopback interface: use https, or http://127.0.0.1, ` +
          'http://[::1] or http://localhost for a client on the same machine.';
  if (isRefusedScheme(scheme))
    return `${subject} uses the ${scheme}: scheme, which cannot receive a code: use https, a loopback http URI or the client's own private-use scheme.`;
  return undefined;
}

/**
 * Whether `presented` is one of the `registered` redirect URIs: the same string, except that a
 * loopback `http` URI matches a registered one on any port (RFC 8252 §7.3: a native client listens
 * on whatever port is free), as long as the scheme, host, path and query are the same.
 */
export function redirectUriMatches(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  const wanted = parse(presented);
  if (!wanted || !isLoopbackHttp(wanted) || redirectUriProblem(presented) !== undefined) return false;
  return registered.some((uri) => {
    const candidate = parse(uri);
    return candidate !== undefined && isLoopbackHttp(candidate) && sameExceptPort(candidate.url, wanted.url);
  });
}

const sameExceptPort = (a: URL, b: URL) =>
  a.hostname === b.hostname &&
  a.pathname === b.pathname &&
  a.search === b.search &&
  a.username === b.username &&
  a.password === b.password;

/**
 * What the consent page shows as where the code goes: the host, with its port when it is not the
 * scheme's default (`claude.ai`, `localhost:6274`); for a private-use scheme the scheme itself
 * (`cursor://`, or `com.example.app:` for one without an authority), since its host means
 * nothing to the person.
 */
export function redirectHost(uri: string): string {
  const parsed = parse(uri);
  if (!parsed) return '';
  const { scheme, url } = parsed;
  if (scheme === 'https' || scheme === 'http') return url.host;
  return uri.slice(scheme.length + 1).startsWith('//') ? `${scheme}://` : `${scheme}:`;
}

/** What kind of client a redirect URI belongs to (SEP-837): `web` for https, `native` otherwise. */
export function redirectKind(uri: string): 'native' | 'web' {
  return parse(uri)?.scheme === 'https' ? 'web' : 'native';
}

/** A URI as a description quotes it: shortened, so a description stays readable. */
function quote(uri: string): string {
  return JSON.stringify(uri.length > 100 ? `${uri.slice(0, 97)}...` : uri);
}
