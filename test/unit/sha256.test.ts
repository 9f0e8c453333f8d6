import { createHash, createHmac } from 'node:crypto';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GenerateMacCommand, KMSClient } from '@aws-sdk/client-kms';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serviceClient } from '#lib/store/client';
import { Sha256 } from '#lib/store/sha256';

/**
 * The SHA-256 the service's AWS SDK clients sign with (lib/store/sha256.ts): Node's own digests,
 * and a SigV4 signature identical to the one the SDK's own SHA-256 makes.
 */
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const hmac = (key: string | Buffer, ...parts: string[]) => {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

describe('the SDK clients’ SHA-256', () => {
  it('hashes as Node does, and may be updated after a digest', async () => {
    const hash = new Sha256();
    hash.update('abc');
    expect(hex(await hash.digest())).toBe(createHash('sha256').update('abc').digest('hex'));
    hash.update(new Uint8Array([1, 2, 3]));
    expect(hex(await hash.digest())).toBe(
      createHash('sha256')
        .update('abc')
        .update(Buffer.from([1, 2, 3]))
        .digest('hex'),
    );
    hash.reset();
    expect(hex(await hash.digest())).toBe(createHash('sha256').digest('hex'));
    // An empty secret is no secret, as in the SDK's own.
    expect(hex(await new Sha256('').digest())).toBe(createHash('sha256').digest('hex'));
  });

  it('makes the HMAC of a key given as a string, as bytes or as a buffer’s part', async () => {
    // Each key its own ArrayBuffer, but the one inside a larger one (a short Buffer shares a pool's).
    const raw = () => new TextEncoder().encode('0123456789abcdef0123456789abcdef');
    const bytes = Buffer.from(raw());
    const larger = new TextEncoder().encode('xx0123456789abcdef0123456789abcdefyy');
    const inAView = new Uint8Array(larger.buffer, 2, bytes.length);
    for (const key of ['secret', raw(), raw().buffer, inAView, new DataView(raw().buffer)]) {
      const mac = new Sha256(key);
      mac.update('to ');
      mac.update(Buffer.from('sign'));
      const expected = hmac(typeof key === 'string' ? key : bytes, 'to ', 'sign');
      expect(hex(await mac.digest())).toBe(expected);
    }
  });

  it('uses a key’s bytes as they are now, even when changed in place since its last use', async () => {
    const key = new Uint8Array(32).fill(1);
    const first = new Sha256(key);
    first.update('m');
    expect(hex(await first.digest())).toBe(hmac(Buffer.from(key), 'm'));
    key.fill(2);
    const second = new Sha256(key);
    second.update('m');
    expect(hex(await second.digest())).toBe(hmac(Buffer.alloc(32, 2), 'm'));
  });

  it('refuses an update after an HMAC’s digest', async () => {
    const mac = new Sha256('k');
    await mac.digest();
    expect(() => mac.update('more')).toThrow('already finished');
    mac.reset();
    mac.update('more');
    expect(hex(await mac.digest())).toBe(hmac('k', 'more'));
  });
});

describe('a request signed by a client the service builds (serviceClient)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /**
   * The headers of the request a client sends, answered with `{}` without leaving the process.
   * The invocation id, random and signed, is pinned just before the request is signed.
   */
  async function signedHeaders(client: DynamoDBClient | KMSClient, send: () => Promise<unknown>) {
    const seen: Record<string, string>[] = [];
    const stack = client.middlewareStack as DynamoDBClient['middlewareStack'];
    const pin =
      (next: (args: { request: unknown }) => Promise<unknown>) => async (args: { request: unknown }) => {
        (args.request as { headers: Record<string, string> }).headers['amz-sdk-invocation-id'] = 'pinned';
        return next(args);
      };
    stack.addRelativeTo(pin as never, {
      relation: 'before',
      toMiddleware: 'httpSigningMiddleware',
      name: 'pinInvocationId',
      override: true,
    });
    client.config.requestHandler = {
      handle: async (request: { headers: Record<string, string> }) => {
        seen.push({ ...request.headers });
        return {
          response: {
            statusCode: 200,
            headers: { 'content-type': 'application/x-amz-json-1.1' },
            body: new TextEncoder().encode('{}'),
          },
        };
      },
    } as never;
    await send();
    return seen[0] as Record<string, string>;
  }

  it('carries the signature the SDK’s own SHA-256 makes (DynamoDB and KMS, two days)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const credentials = {
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    };
    for (const day of ['2026-11-27T10:00:00Z', '2026-11-28T23:59:59Z']) {
      vi.setSystemTime(new Date(day));
      const get = new GetItemCommand({ TableName: 'keys', Key: { pk: { S: 'KEY#1' }, sk: { S: 'KEY' } } });
      const mac = new GenerateMacCommand({
        KeyId: 'alias/pepper',
        MacAlgorithm: 'HMAC_SHA_256',
        Message: Buffer.from('v1'),
      });
      const pairs = [
        [
          new DynamoDBClient({ region: 'eu-west-1', credentials }),
          serviceClient(DynamoDBClient, { region: 'eu-west-1', credentials }),
        ],
        [
          new KMSClient({ region: 'eu-west-1', credentials }),
          serviceClient(KMSClient, { region: 'eu-west-1', credentials }),
        ],
      ] as const;
      for (const [stock, ours] of pairs) {
        const send = (c: DynamoDBClient | KMSClient) => () =>
          c instanceof DynamoDBClient ? c.send(get) : (c as KMSClient).send(mac);
        const expected = await signedHeaders(stock, send(stock));
        // Twice: the second signs with the cached signing key's KeyObject.
        for (let i = 0; i < 2; i++) {
          const actual = await signedHeaders(ours, send(ours));
          expect(actual.authorization).toMatch(
            /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/(dynamodb|kms)\/aws4_request, SignedHeaders=.+, Signature=[0-9a-f]{64}$/,
          );
          expect(actual['amz-sdk-invocation-id']).toBe('pinned');
          expect(actual.authorization).toBe(expected.authorization);
          expect(actual['x-amz-date']).toBe(expected['x-amz-date']);
        }
      }
    }
  });
});
