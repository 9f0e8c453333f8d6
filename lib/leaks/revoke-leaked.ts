import { createHash, randomUUID } from 'node:crypto';
import { type Actor, grantRevoked, keyLeakRevoked } from '#lib/events/model';
import { KEY_LENGTH, parseGrantCredential, parseKey } from '#lib/keys/format';
import { type KeyRecord, keyStatus } from '#lib/keys/model';
import { matchesDigest, NO_DIGEST, type PepperSource } from '#lib/keys/pepper';
import type { KeyStore } from '#lib/keys/port';
import { LEAK_LIMITS } from '#lib/limits';

/**
 * Leak response (contract §11, §15): whoever holds a key, or an OAuth access or refresh token, may
 * kill it (a token kills its grant). Every reported string costs the
 * same work whatever it is (its place in one batched consistent read, and one digest compare), so
 * the answer's timing says little about whether a key was real; only a real, active key is then
 * revoked, with its `key.leak_revoked` event in the same transaction.
 */

export interface LeakServiceDeps {
  keys: Pick<KeyStore, 'getMany' | 'revoke'>;
  peppers: PepperSource;
  now: () => Date;
}

export interface LeakReport {
  token: string;
  /** Where it was found (a URL), if the reporter says. */
  source: string | null;
}

export interface LeakVerdict {
  /** SHA-256 (hex) of the reported string: how GitHub names a token it reported. */
  tokenHash: string;
  /** The string is one of our keys (its secret matched), whatever its state. */
  genuine: boolean;
  /** This report revoked it. */
  revoked: boolean;
}

// Stryker disable next-line StringLiteral: UTF-8 is the default encoding of a string (this also switches off 'sha256' and 'hex', killed by test/unit/leak-verdicts.test.ts)
export const tokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** The id a reported string names: a key's, or a grant's for an access or refresh token. */
function idOf(token: string): string | undefined {
  const parsed = parseKey(token);
  if (parsed.ok) return parsed.id;
  const credential = parseGrantCredential(token);
  return credential.ok && credential.kind !== 'authorization_code' ? credential.id : undefined;
}

/**
 * The digests a grant still knows of its tokens (contract §15): its access token, the one
 * replaced in the grace, its refresh token and the replaced ones it remembers.
 */
const grantDigests = (record: KeyRecord): string[] => {
  const g = record.grant;
  if (!g) return [];
  return [
    g.access?.digest,
    g.previous_access?.digest,
    g.refresh,
    ...(g.replaced_refresh ?? []).map((r) => r.digest),
  ].filter((d): d is string => typeof d === 'string');
};

/** Whether `token` is the secret of `record` (a missing record is compared against no digest). */
async function isSecretOf(
  deps: LeakServiceDeps,
  token: string,
  record: KeyRecord | undefined,
): Promise<boolean> {
  const credential = parseGrantCredential(token);
  if (credential.ok && credential.kind !== 'authorization_code' && record?.kind) {
    for (const digest of grantDigests(record))
      if (
        await matchesDigest(deps.peppers, credential.token, { digest, pepperVersion: record.pepper_version })
      )
        return true;
    return false;
  }
  const parsed = parseKey(token);
  // Stryker disable next-line MethodExpression: a string that is no key meets no digest, false either way; the slice only bounds the hashing cost
  return matchesDigest(deps.peppers, parsed.ok ? parsed.apiKey : token.slice(0, KEY_LENGTH), {
    digest: record?.digest ?? NO_DIGEST,
    pepperVersion: record?.pepper_version ?? deps.peppers.currentVersion,
  });
}

/**
 * Checks every report and revokes each genuine, active key; verdicts in the reports' order. All
 * the keys are read in one `getMany` (a string that is no key reads a random id, so it costs
 * what a key costs); a key reported more than once is revoked once, by its first report.
 */
export async function revokeLeakedKeys(
  deps: LeakServiceDeps,
  reports: LeakReport[],
  actor: Actor,
): Promise<LeakVerdict[]> {
  const ids = reports.map(({ token }) => idOf(token) ?? randomUUID());
  const records = await deps.keys.getMany(ids);
  const now = deps.now();
  const revoking = new Set<string>();
  return Promise.all(
    reports.map(async (report, i): Promise<LeakVerdict> => {
      const verdict = { tokenHash: tokenHash(report.token), genuine: false, revoked: false };
      // Stryker disable next-line StringLiteral: there is an id for every report, so the fallback is never read
      const record = records.get(ids[i] ?? '');
      const matches = await isSecretOf(deps, report.token, record);
      if (!record || !matches) return verdict;
      if (keyStatus(record, now) !== 'active' || revoking.has(record.id))
        return { ...verdict, genuine: true };
      revoking.add(record.id);
      // A leaked access or refresh token revokes its grant (contract §15).
      const event = record.kind
        ? grantRevoked(record, 'leak', actor, now)
        : keyLeakRevoked(record, actor, report.source, now);
      const outcome = await deps.keys.revoke(record, now, [event]);
      return { ...verdict, genuine: true, revoked: outcome.kind === 'revoked' };
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A public report (contract §11): the same checks, and an answer no sooner than
 * `LEAK_LIMITS.minAnswerMs` after it began, so that a revocation's write does not show in the
 * timing of an answer that must say nothing about what the strings were.
 */
export async function handlePublicReport(
  deps: LeakServiceDeps,
  reports: LeakReport[],
): Promise<LeakVerdict[]> {
  const started = performance.now();
  const verdicts = await revokeLeakedKeys(deps, reports, { type: 'public_report', id: null });
  await sleep(LEAK_LIMITS.minAnswerMs - (performance.now() - started));
  return verdicts;
}
