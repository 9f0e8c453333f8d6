import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GenerateMacCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { digestKey } from '#lib/keys/pepper';
import { kmsPepperSource } from '#lib/keys/pepper-kms';
import { localPepperSource } from '#lib/keys/pepper-local';

/** Where a pepper comes from: KMS (stood in for at the SDK client) or a local file. */
const kmsMock = mockClient(KMSClient);
// The files of this tier share their workers' modules: the client's own `send` comes back after.
afterAll(() => kmsMock.restore());
beforeEach(() => kmsMock.reset());

describe('the KMS pepper source', () => {
  it('builds its client only when it first derives the pepper', async () => {
    kmsMock.on(GenerateMacCommand).resolves({ Mac: Buffer.alloc(32, 1) });
    let built = 0;
    const peppers = kmsPepperSource(
      () => {
        built++;
        return new KMSClient({ region: 'us-east-1' });
      },
      'alias/pepper',
      1,
    );
    expect(built).toBe(0);
    await digestKey(peppers, 'svc_mcp_v1_x');
    expect(built).toBe(1);
  });

  it('refuses an answer with no MAC or a MAC shorter than 32 bytes', async () => {
    for (const Mac of [undefined, Buffer.alloc(31, 1)]) {
      kmsMock.reset();
      kmsMock.on(GenerateMacCommand).resolves({ Mac });
      const peppers = kmsPepperSource(new KMSClient({ region: 'us-east-1' }), 'alias/pepper', 1);
      await expect(peppers.pepper(1)).rejects.toThrow('KMS GenerateMac returned no usable MAC');
    }
  });
});

describe('the local pepper source', () => {
  it('refuses a pepper file of the wrong size rather than use it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-pepper-'));
    await writeFile(join(dir, 'pepper-v1.bin'), Buffer.alloc(5));
    await expect(localPepperSource(dir, 1).pepper(1)).rejects.toThrow(
      `pepper file ${join(dir, 'pepper-v1.bin')} is corrupt (expected 32 bytes)`,
    );
  });
});
