import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '#infra/local/emulation/dynamodb-local';

/**
 * The MCP clients people run, run as a person runs them: a program's output as printed, stdout and
 * stderr together, in a person's environment rather than the test runner's; and the MCP
 * Inspector's CLI (`mcp-inspector --cli`) in a terminal, against an MCP endpoint with an API key
 * as its `Authorization` header.
 */

const INSPECTOR = fileURLToPath(
  new URL(
    '../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
    import.meta.url,
  ),
);

/** What a program printed, and how it exited. */
export interface Shown {
  code: number | null;
  output: string;
}

/** A running program, for a test that drives it through its stdin. */
export interface Session {
  write: (line: string) => void;
  output: () => string;
  /** Ends the program as a host does when it quits. */
  stop: () => void;
}

/** Runs a program to its end (or kills it after 30 s); stdout and stderr together, as a person reads them. */
export function runProgram(
  command: string,
  args: string[],
  env: Record<string, string>,
  drive?: (session: Session) => void,
): Promise<Shown> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: 'pipe' });
    let output = '';
    const append = (d: Buffer) => {
      output += d.toString();
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    drive?.({
      write: (line) => child.stdin.write(`${line}\n`),
      output: () => output,
      stop: () => child.kill('SIGTERM'),
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** A person's environment, not the test runner's: no VITEST, `home` as their home. */
export const personEnv = (home: string, extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  ...extra,
});

/** Throws, with how to install it, when util-linux `script` (the Inspector's terminal) is missing. */
export function assertTerminal(): void {
  if (!existsSync('/usr/bin/script'))
    throw new Error(
      'util-linux `script` is missing at /usr/bin/script: the Inspector needs a terminal (apt-get install -y bsdutils).',
    );
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Runs the Inspector CLI against `url` with `apiKey` and `args` (`--method …`), in a pseudo-terminal
 * from util-linux `script` (the Inspector starts OAuth only when a person is there to sign in), with
 * a home of its own.
 */
export async function runInspector(url: string, apiKey: string, args: string[]): Promise<Shown> {
  const argv = [process.execPath, INSPECTOR, '--cli', url, '--transport', 'http']
    .concat(['--header', `Authorization: Bearer ${apiKey}`, ...args])
    .map(quote)
    .join(' ');
  const env = personEnv(mkdtempSync(join(tmpdir(), 'svc-inspector-home-')), {
    MCP_INSPECTOR_SECRET_STORE: 'memory',
    NO_COLOR: '1',
    // Its OAuth callback listens on 6276 unless told otherwise: another run on this machine may hold it.
    MCP_OAUTH_CALLBACK_URL: `http://127.0.0.1:${await freePort()}/oauth/callback`,
  });
  const shown = await runProgram('script', ['-qec', argv, '/dev/null'], env);
  // A terminal ends its lines with CR LF.
  return { code: shown.code, output: shown.output.replaceAll('\r\n', '\n') };
}

/** The first JSON document the Inspector printed over several lines (its results are pretty-printed). */
export function printedJson(output: string): unknown {
  const start = output.indexOf('{');
  const end = output.indexOf('\n}', start);
  if (start < 0 || end < 0) throw new Error(`the Inspector printed no JSON:\n${output}`);
  return JSON.parse(output.slice(start, end + 2));
}
