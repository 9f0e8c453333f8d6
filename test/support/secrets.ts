import { GRANT_CREDENTIAL_PREFIXES, KEY_PREFIX } from '#lib/keys/format';
import { ID_CHARS, SECRET_CHARS } from '#lib/keys/grammar';

/** A key's prefix and the OAuth credentials' (access, refresh, authorization code). */
const CREDENTIAL_PREFIXES: readonly string[] = [KEY_PREFIX, ...Object.values(GRANT_CREDENTIAL_PREFIXES)];

/**
 * Every secret a suite has seen (issued keys, digests, tokens), so it can prove none of them
 * reached a log, an error body or a list response.
 */
export class SecretLedger {
  private readonly secrets = new Set<string>();

  add(...values: (string | undefined)[]): void {
    for (const v of values) if (v && v.length >= 16) this.secrets.add(v);
  }

  /** The secrets (for keys and OAuth credentials, their secret part) that occur in `text`. */
  leaksIn(text: string): string[] {
    const found: string[] = [];
    for (const secret of this.secrets) {
      // For a key or an OAuth credential (same body on the grant's id), the id part is not
      // secret; the 43-character secret after it is.
      const prefix = CREDENTIAL_PREFIXES.find((p) => secret.startsWith(p));
      const needle = prefix
        ? secret.slice(prefix.length + ID_CHARS, prefix.length + ID_CHARS + SECRET_CHARS)
        : secret;
      if (text.includes(needle)) found.push(`${secret.slice(0, 14)}…`);
    }
    return found;
  }

  get size(): number {
    return this.secrets.size;
  }
}
