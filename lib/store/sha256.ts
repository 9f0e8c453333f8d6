import { createHash, createHmac, createSecretKey, type Hash, type Hmac, type KeyObject } from 'node:crypto';

type SourceData = string | ArrayBuffer | ArrayBufferView;

/** The key bytes each HMAC key was made from, to notice bytes changed in place after use. */
const keyObjects = new WeakMap<object, { bytes: Buffer; key: KeyObject }>();

const bytesOf = (data: ArrayBuffer | ArrayBufferView): Buffer =>
  ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data);

/** An HMAC key as Node takes it fastest: a string as it is, bytes as a KeyObject made once. */
function hmacKey(secret: SourceData): string | KeyObject {
  if (typeof secret === 'string') return secret;
  const bytes = bytesOf(secret);
  const known = keyObjects.get(secret);
  if (known?.bytes.equals(bytes)) return known.key;
  const made = { bytes: Buffer.from(bytes), key: createSecretKey(bytes) };
  keyObjects.set(secret, made);
  return made.key;
}

/**
 * SHA-256 and HMAC-SHA-256 for the AWS SDK clients the service builds (`serviceClient`):
 * the SDK's own for Node, except that an HMAC key given as bytes reaches Node as a `KeyObject`,
 * made once per key. Node 24's `createHmac` takes about 27 µs given a key as bytes (checking whether
 * they are a `KeyObject` or a `CryptoKey`), 4.7 µs given a `KeyObject`, and SigV4 signs every request
 * with an HMAC keyed by the same cached signing key: 13% of this process's CPU per `GetItem`
 * (docs/decisions.md, decision 74).
 */
export class Sha256 {
  readonly digestLength = 32;
  readonly #secret: SourceData | undefined;
  #hash: Hash | Hmac;
  #finished = false;

  /** With a secret, an HMAC keyed by it (an empty string is none, as in the SDK's own). */
  constructor(secret?: SourceData) {
    this.#secret = secret || undefined;
    this.#hash = this.#create();
  }

  update(data: SourceData, encoding?: 'utf8' | 'ascii' | 'latin1'): void {
    if (this.#finished) throw new Error('Attempted to update an already finished hash.');
    if (typeof data === 'string') this.#hash.update(data, encoding ?? 'utf8');
    else this.#hash.update(bytesOf(data));
  }

  /** An HMAC is finished by its digest; a hash may be updated and digested again. */
  async digest(): Promise<Uint8Array> {
    let out: Buffer;
    if (this.#secret === undefined) out = (this.#hash as Hash).copy().digest();
    else {
      this.#finished = true;
      out = this.#hash.digest();
    }
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  }

  reset(): void {
    this.#hash = this.#create();
    this.#finished = false;
  }

  #create(): Hash | Hmac {
    return this.#secret === undefined ? createHash('sha256') : createHmac('sha256', hmacKey(this.#secret));
  }
}
