import { request } from 'node:http';

/**
 * Work to do as a Lambda instance ends: writing the usage counts still waiting (contract §18).
 * Lambda sends the runtime SIGTERM before it ends an instance only when an extension is
 * registered, so this registers an internal one (the "graceful shutdown" pattern of
 * aws-samples/graceful-shutdown-with-aws-lambda): `POST /2020-01-01/extension/register` with no
 * events, then `GET /2020-01-01/extension/event/next`, which tells Lambda the extension is ready and
 * is never answered. Registration closes with the init phase: a function awaits it at module scope.
 * The runtime then has 500 ms (Lambda's share for a runtime with internal extensions) before
 * SIGKILL.
 */

/** The internal extension's name: unique within the function. */
export const EXTENSION_NAME = 'svc-mcp-usage-flush';

export interface LambdaShutdownOptions {
  /** Where `AWS_LAMBDA_RUNTIME_API` is read. @default process.env */
  env?: Record<string, string | undefined>;
  /** Where SIGTERM arrives and how the process ends. @default process */
  process?: Pick<NodeJS.Process, 'once' | 'exit'>;
  /** Told when the registration or a task fails; the process still exits. */
  onError?: (err: unknown) => void;
}

export interface LambdaShutdown {
  /**
   * Adds `task` to what SIGTERM runs; the first call registers the extension and the handler.
   * Resolves once registered (at once outside Lambda, where nothing is registered); never rejects.
   */
  add(task: () => Promise<void>): Promise<void>;
}

/** One process's shutdown: an extension registered once, and one SIGTERM handler running every task, then exiting. */
export function lambdaShutdown(options: LambdaShutdownOptions = {}): LambdaShutdown {
  const env = options.env ?? process.env;
  const proc = options.process ?? process;
  const tell = (err: unknown) => options.onError?.(err);
  const tasks = new Set<() => Promise<void>>();
  let registered: Promise<void> | undefined;
  const end = async () => {
    const outcomes = await Promise.allSettled([...tasks].map((task) => task()));
    for (const outcome of outcomes) if (outcome.status === 'rejected') tell(outcome.reason);
    proc.exit(0);
  };
  return {
    add(task) {
      const api = env.AWS_LAMBDA_RUNTIME_API;
      if (!api) return Promise.resolve();
      tasks.add(task);
      registered ??= register(api).then((id) => {
        proc.once('SIGTERM', () => void end());
        // Ready: the init phase ends once the runtime and every extension asked for their next event.
        waitForever(api, id).catch(tell);
      }, tell);
      return registered;
    },
  };
}

let shared: LambdaShutdown | undefined;

/** The process's shutdown (`lambdaShutdown()` with the process's environment), made on first use. */
export function onLambdaShutdown(task: () => Promise<void>, onError?: (err: unknown) => void): Promise<void> {
  shared ??= lambdaShutdown(onError ? { onError } : {});
  return shared.add(task);
}

/** Registers the extension for no event; its identifier. */
async function register(api: string): Promise<string> {
  const { status, headers } = await send(api, 'POST', '/2020-01-01/extension/register', {
    headers: { 'Lambda-Extension-Name': EXTENSION_NAME, 'content-type': 'application/json' },
    body: JSON.stringify({ events: [] }),
  });
  const id = headers['lambda-extension-identifier'];
  if (status !== 200 || typeof id !== 'string')
    throw new Error(`Lambda extension registration answered ${status}`);
  return id;
}

/** Asks for the next event, which never comes for an extension with none; rejects if the request fails. */
async function waitForever(api: string, id: string): Promise<void> {
  // Stryker disable next-line StringLiteral: equivalent, an empty method is Node's default, GET
  const { status } = await send(api, 'GET', '/2020-01-01/extension/event/next', {
    headers: { 'Lambda-Extension-Identifier': id },
    // Never answered: it must not keep a process that is otherwise done (a test's) alive.
    unref: true,
  });
  throw new Error(`Lambda extension next event answered ${status}`);
}

/** One request to the Runtime API on a connection of its own, with no timeout (a long poll). */
function send(
  api: string,
  method: string,
  path: string,
  options: { headers: Record<string, string>; body?: string; unref?: boolean },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(`http://${api}${path}`, { method, headers: options.headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      res.on('error', reject);
    });
    if (options.unref) req.on('socket', (socket) => socket.unref());
    req.on('error', reject);
    req.end(options.body);
  });
}
