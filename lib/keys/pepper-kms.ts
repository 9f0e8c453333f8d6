import { GenerateMacCommand, type KMSClient } from '@aws-sdk/client-kms';
import { memoisePepper, type PepperSource } from './pepper.ts';

/** The message MAC'd by KMS to derive pepper version N (contract §2). */
export const pepperMessage = (version: number): string => `svc-mcp-api-key-pepper/v${version}`;

/**
 * Pepper derived from a KMS HMAC_256 key with GenerateMac, once per version per process.
 * The hot path never calls KMS after the first derivation.
 */
export function kmsPepperSource(
  kms: KMSClient | (() => KMSClient),
  keyId: string,
  currentVersion: number,
): PepperSource {
  // A function that never derives the pepper never builds the client.
  const client = typeof kms === 'function' ? kms : () => kms;
  const pepper = memoisePepper(async (version) => {
    const out = await client().send(
      new GenerateMacCommand({
        KeyId: keyId,
        MacAlgorithm: 'HMAC_SHA_256',
        // Stryker disable next-line StringLiteral: UTF-8 is Buffer.from's default encoding
        Message: Buffer.from(pepperMessage(version), 'utf8'),
      }),
    );
    if (!out.Mac || out.Mac.length < 32) throw new Error('KMS GenerateMac returned no usable MAC');
    return Buffer.from(out.Mac);
  });
  return { currentVersion, pepper };
}
