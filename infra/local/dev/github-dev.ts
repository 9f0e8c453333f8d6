import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GithubPublicKey } from '#lib/leaks/github-keys';

/**
 * Local mode's stand-in for GitHub's secret scanning signing key (contract §11): an ECDSA P-256
 * key generated once into the data directory (mode 0600). Its public half is served in GitHub's
 * format and used instead of GitHub's keys; `sign` signs a raw body as GitHub would.
 */
export interface GithubDevSigner {
  publicKeys(): GithubPublicKey[];
  sign(rawBody: Buffer): { key_identifier: string; signature: string };
}

async function loadOrCreate(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  try {
    await writeFile(file, pem, { flag: 'wx', mode: 0o600 });
    return pem;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readFile(file, 'utf8');
  }
}

export async function githubDevSigner(dataDir: string): Promise<GithubDevSigner> {
  const privateKey = createPrivateKey(await loadOrCreate(join(dataDir, 'github-dev-signing-key.pem')));
  const publicPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  // GitHub's identifiers are hex digests of the key; ours is the SHA-256 of its DER form.
  const keyIdentifier = createHash('sha256')
    .update(createPublicKey(privateKey).export({ type: 'spki', format: 'der' }))
    .digest('hex');
  return {
    publicKeys: () => [{ key_identifier: keyIdentifier, key: publicPem, is_current: true }],
    sign: (rawBody) => ({
      key_identifier: keyIdentifier,
      signature: sign('sha256', rawBody, privateKey).toString('base64'),
    }),
  };
}
