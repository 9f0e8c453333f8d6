/**
 * Every secret a suite has seen (issued keys, digests, tokens), so it can prove none of them
 * reached a log, an error body or a list response.
 */
export class SecretLedger {
  private readonly secrets = new Set<string>();

  add(...values: (string | undefined)[]): void {
    for (const v of values) if (v && v.length >= 16) this.secrets.add(v);
  }

  /** The secrets (or, for keys, their secret part) that occur in `text`. */
  leaksIn(text: string): string[] {
    const found: string[] = [];
    for (const secret of this.secrets) {
      // For a key, the id part is not secret; the 43-character secret in the middle is.
      const needle = secret.startsWith('svc_mcp_v1_') ? secret.slice(33, 76) : secret;
      if (text.includes(needle)) found.push(`${secret.slice(0, 14)}…`);
    }
    return found;
  }

  get size(): number {
    return this.secrets.size;
  }
}
