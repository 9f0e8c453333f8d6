import { statSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GenerateMacCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { generateKey } from '#lib/keys/format';
import { digestKey, matchesDigest } from '#lib/keys/pepper';
import { kmsPepperSource } from '#lib/keys/pepper-kms';
import { localPepperSource } from '#lib/keys/pepper-local';

const kmsMock = mockClient(KMSClient);
// The files of this tier share their workers' modules: the client's own `send` comes back after.
afterAll(() => kmsMock.restore());
const MAC = Buffer.alloc(32, 7);

describe('KMS pepper source', () => {
  beforeEach(() => kmsMock.reset());

  it('derives the pepper with GenerateMac on the configured HMAC key and the versioned message', async () => {
    kmsMock.on(GenerateMacCommand).resolves({ Mac: MAC });
    const peppers = kmsPepperSource(new KMSClient({ region: 'us-east-1' }), 'alias/pepper', 3);
    await digestKey(peppers, generateKey().apiKey);
    const calls = kmsMock.commandCalls(GenerateMacCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]?.args[0].input;
    expect(input?.KeyId).toBe('alias/pepper');
    expect(input?.MacAlgorithm).toBe('HMAC_SHA_256');
    expect(Buffer.from(input?.Message ?? []).toString('utf8')).toBe('svc-mcp-api-key-pepper/v3');
  });

  it('calls KMS once for many digests, including concurrent first calls', async () => {
    kmsMock.on(GenerateMacCommand).resolves({ Mac: MAC });
    const peppers = kmsPepperSource(new KMSClient({ region: 'us-east-1' }), 'k', 1);
    const keys = Array.from({ length: 50 }, () => generateKey().apiKey);
    const digests = await Promise.all(keys.map((k) => digestKey(peppers, k)));
    expect(kmsMock.commandCalls(GenerateMacCommand)).toHaveLength(1);
    expect(new Set(digests.map((d) => d.digest)).size).toBe(50);
    expect(digests.every((d) => d.pepperVersion === 1)).toBe(true);
  });

  it('does not cache a failed derivation: the next call retries', async () => {
    kmsMock.on(GenerateMacCommand).rejectsOnce(new Error('KMS down')).resolves({ Mac: MAC });
    const peppers = kmsPepperSource(new KMSClient({ region: 'us-east-1' }), 'k', 1);
    const key = generateKey().apiKey;
    await expect(digestKey(peppers, key)).rejects.toThrow('KMS down');
    const stored = await digestKey(peppers, key);
    expect(await matchesDigest(peppers, key, stored)).toBe(true);
    expect(kmsMock.commandCalls(GenerateMacCommand)).toHaveLength(2);
  });

  it('verifies with the stored pepper version, so the pepper can rotate', async () => {
    kmsMock.on(GenerateMacCommand).callsFake((input: { Message: Uint8Array }) => ({
      Mac: Buffer.alloc(32, Buffer.from(input.Message).at(-1)),
    }));
    const kms = new KMSClient({ region: 'us-east-1' });
    const key = generateKey().apiKey;
    const storedV1 = await digestKey(kmsPepperSource(kms, 'k', 1), key);
    const v2 = kmsPepperSource(kms, 'k', 2);
    expect(await matchesDigest(v2, key, storedV1)).toBe(true);
    expect((await digestKey(v2, key)).digest).not.toBe(storedV1.digest);
  });
});

describe('local pepper source', () => {
  it('creates a 32-byte pepper file with mode 0600 once and reuses it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pepper-'));
    const key = generateKey().apiKey;
    const stored = await digestKey(localPepperSource(dir, 1), key);
    const file = join(dir, 'pepper-v1.bin');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await readFile(file)).length).toBe(32);
    // A second process (a fresh source) reads the same pepper.
    expect(await matchesDigest(localPepperSource(dir, 1), key, stored)).toBe(true);
  });

  it('rejects a wrong key and a digest made with another pepper', async () => {
    const a = localPepperSource(await mkdtemp(join(tmpdir(), 'pepper-')), 1);
    const b = localPepperSource(await mkdtemp(join(tmpdir(), 'pepper-')), 1);
    const key = generateKey().apiKey;
    const stored = await digestKey(a, key);
    expect(await matchesDigest(a, generateKey().apiKey, stored)).toBe(false);
    expect(await matchesDigest(b, key, stored)).toBe(false);
    expect(await matchesDigest(a, key, { ...stored, digest: 'AAAA' })).toBe(false);
  });
});
