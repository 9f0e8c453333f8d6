/**
 * A Lambda execution environment for one function, run by Node 24 itself (no loader, no
 * transpiler: Node strips this file's types). It loads the handler the way the Node.js runtime
 * does, from `LAMBDA_TASK_ROOT` and `_HANDLER` (`file.export`: `file.js`, `file.mjs` or
 * `file.cjs`, in that order, each in the module format Node gives its extension), then serves
 * invocations sent by its parent over IPC, one at a time, as an environment does.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

interface Invocation {
  id: number;
  event: unknown;
  requestId: string;
}

/**
 * Every message says whether undici (the stack behind `fetch`) is loaded yet: its load is a
 * cold-start cost. `process.moduleLoadList` (Node's internal list of the built-ins it loaded) is
 * undocumented; should it go, this throws and the suite says so.
 */
const undiciLoaded = () =>
  (process as unknown as { moduleLoadList: string[] }).moduleLoadList.some((m) => m.includes('undici'));
const send = (message: object) => process.send?.({ ...message, undici: undiciLoaded() });
const describe = (err: unknown) => ({
  errorType: (err as Error)?.name ?? 'Error',
  errorMessage: (err as Error)?.message ?? String(err),
});

async function load(): Promise<Handler> {
  const root = process.env.LAMBDA_TASK_ROOT as string;
  const spec = process.env._HANDLER as string;
  const dot = spec.lastIndexOf('.');
  const [file, exported] = [spec.slice(0, dot), spec.slice(dot + 1)];
  const path = ['.js', '.mjs', '.cjs'].map((ext) => join(root, file + ext)).find((p) => existsSync(p));
  if (!path) throw new Error(`Runtime.ImportModuleError: Cannot find module '${file}'`);
  const module = path.endsWith('.cjs')
    ? createRequire(import.meta.url)(path)
    : await import(pathToFileURL(path).href);
  const handler = module[exported] ?? module.default?.[exported];
  if (typeof handler !== 'function') throw new Error(`Runtime.HandlerNotFound: ${spec} is undefined`);
  return handler;
}

const started = performance.now();
let handler: Handler;
try {
  handler = await load();
  send({ type: 'ready', initMs: performance.now() - started });
} catch (err) {
  send({ type: 'init-error', ...describe(err) });
  process.exit(1);
}

process.on('message', async ({ id, event, requestId }: Invocation) => {
  const deadline = Date.now() + Number(process.env.ARTIFACT_TIMEOUT_MS ?? 30_000);
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:123456789012:function:${process.env.AWS_LAMBDA_FUNCTION_NAME}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: requestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    send({ id, result: await handler(event, context) });
  } catch (err) {
    send({ id, error: describe(err) });
  }
});
