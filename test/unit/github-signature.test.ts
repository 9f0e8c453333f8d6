import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type GithubPublicKey, GithubSignatureVerifier } from '#lib/leaks/github-keys';

function signer(keyIdentifier: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    published: {
      key_identifier: keyIdentifier,
      key: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    },
    sign: (body: Buffer) => sign('sha256', body, privateKey).toString('base64'),
  };
}

function verifierFor(keys: () => GithubPublicKey[], now = () => 0) {
  let fetches = 0;
  const verifier = new GithubSignatureVerifier(async () => {
    fetches++;
    return keys();
  }, now);
  return { verifier, fetches: () => fetches };
}

// The exact bytes GitHub would send: spacing that a re-serialisation would not keep.
const RAW = Buffer.from(
  '[{"token":"svc_mcp_v1_x", "type":"svc_mcp_api_key","url":"https://github.com/o/r","source":"content"}]',
);

describe('GitHub secret scanning signatures', () => {
  it('accepts a body signed by a published key', async () => {
    const github = signer('k1');
    const { verifier } = verifierFor(() => [github.published]);
    expect(await verifier.verify({ keyIdentifier: 'k1', signature: github.sign(RAW), rawBody: RAW })).toBe(
      true,
    );
  });

  it('rejects a body changed after signing', async () => {
    const github = signer('k1');
    const { verifier } = verifierFor(() => [github.published]);
    const changed = Buffer.from(RAW.toString().replace('o/r', 'o/x'));
    expect(
      await verifier.verify({ keyIdentifier: 'k1', signature: github.sign(RAW), rawBody: changed }),
    ).toBe(false);
  });

  it('rejects a signature over the parsed and re-serialised JSON', async () => {
    const github = signer('k1');
    const { verifier } = verifierFor(() => [github.published]);
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(RAW.toString())));
    expect(reserialised.equals(RAW)).toBe(false);
    const signature = github.sign(reserialised);
    expect(await verifier.verify({ keyIdentifier: 'k1', signature, rawBody: RAW })).toBe(false);
  });

  it('rejects an unknown key identifier, a key of someone else, and missing headers', async () => {
    const github = signer('k1');
    const impostor = signer('k1');
    const { verifier } = verifierFor(() => [github.published]);
    expect(await verifier.verify({ keyIdentifier: 'k2', signature: github.sign(RAW), rawBody: RAW })).toBe(
      false,
    );
    expect(await verifier.verify({ keyIdentifier: 'k1', signature: impostor.sign(RAW), rawBody: RAW })).toBe(
      false,
    );
    expect(
      await verifier.verify({ keyIdentifier: undefined, signature: github.sign(RAW), rawBody: RAW }),
    ).toBe(false);
    expect(await verifier.verify({ keyIdentifier: 'k1', signature: undefined, rawBody: RAW })).toBe(false);
    expect(await verifier.verify({ keyIdentifier: 'k1', signature: 'not base64 DER', rawBody: RAW })).toBe(
      false,
    );
  });

  it('fetches once, and refetches on an unknown identifier at most once a minute', async () => {
    let clock = 0;
    const first = signer('k1');
    const rotated = signer('k2');
    let published = [first.published];
    const { verifier, fetches } = verifierFor(
      () => published,
      () => clock,
    );
    expect(await verifier.verify({ keyIdentifier: 'k1', signature: first.sign(RAW), rawBody: RAW })).toBe(
      true,
    );
    expect(await verifier.verify({ keyIdentifier: 'k1', signature: first.sign(RAW), rawBody: RAW })).toBe(
      true,
    );
    expect(fetches()).toBe(1);
    published = [first.published, rotated.published];
    clock = 30_000;
    // Within the minute, an unknown identifier does not refetch.
    expect(await verifier.verify({ keyIdentifier: 'k2', signature: rotated.sign(RAW), rawBody: RAW })).toBe(
      false,
    );
    expect(fetches()).toBe(1);
    clock = 61_000;
    expect(await verifier.verify({ keyIdentifier: 'k2', signature: rotated.sign(RAW), rawBody: RAW })).toBe(
      true,
    );
    expect(fetches()).toBe(2);
  });

  it('answers a failed fetch as a dependency failure, not a bad signature', async () => {
    const verifier = new GithubSignatureVerifier(async () => {
      throw new Error('connect ECONNREFUSED');
    });
    await expect(
      verifier.verify({ keyIdentifier: 'k1', signature: 'x', rawBody: RAW }),
    ).rejects.toMatchObject({
      name: 'DependencyError',
    });
  });
});
