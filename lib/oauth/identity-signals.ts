import { DependencyError } from '#lib/errors';
import { grantRevoked, identityProviderActor, keyRevoked } from '#lib/events/model';
import { SetError, type Signal, verifySet } from '#lib/identity/security-events';
import type { KeyRecord } from '#lib/keys/model';
import { activeCredentialsOf } from '#lib/keys/service';
import type { EnterpriseDeps, OAuthDeps } from './deps.ts';

/**
 * Identity signals (contract §17): a trusted IdP pushes a security event token when it disables,
 * purges or signs out a person, and this service ends their credentials at once. RISC
 * `account-disabled` and `account-purged` first record the disabling on the person (so no mint
 * for them lands from then on: create, rotate, approve and exchange each check it in their own
 * transaction), then revoke every active credential of theirs (API keys, consent grants,
 * enterprise grants); RISC `account-enabled` removes that IdP's disabling (what was revoked stays
 * revoked). CAEP `session-revoked` revokes their enterprise grants from that IdP. Each revocation
 * is its own transaction with its event (reason `identity_provider`); other events are
 * acknowledged and ignored. A SET acted on is remembered by its `jti`, only once every revocation
 * landed: a delivery that failed midway is retried by the IdP and finishes the rest, and a repeat
 * of one that succeeded writes nothing.
 */

/** Revocations running at once for one person: their cap of credentials ends in one delivery. */
const CONCURRENCY = 8;

/** What a delivery did. */
export interface SignalOutcome {
  /** A `jti` acted on before: nothing was done again. */
  repeated: boolean;
  /** Credentials revoked by this delivery. */
  revoked: number;
}

/** The person's active credentials a signal ends. */
async function credentialsToEnd(deps: OAuthDeps, signal: Signal, issuer: string): Promise<KeyRecord[]> {
  const found: KeyRecord[] = [];
  for await (const page of activeCredentialsOf(deps, signal.userId as string))
    found.push(
      ...page.filter((record) =>
        signal.event === 'session-revoked'
          ? // Stryker disable next-line ConditionalExpression,LogicalOperator,OptionalChaining: equivalent for the kind (only an enterprise grant names an IdP, and always has its grant details); the IdP's own check (`idp === issuer` as true) is killed by test/integration/enterprise-exchange-edges.test.ts
            record.kind === 'enterprise_grant' && record.grant?.idp === issuer
          : true,
      ),
    );
  return found;
}

/** Revokes `records`, each in its own transaction with its event; how many this delivery revoked. */
async function revokeAll(deps: OAuthDeps, records: KeyRecord[], issuer: string): Promise<number> {
  const actor = identityProviderActor(issuer);
  let revoked = 0;
  const queue = [...records];
  const worker = async () => {
    for (let record = queue.shift(); record; record = queue.shift()) {
      const now = deps.now();
      const event = record.kind
        ? grantRevoked(record, 'identity_provider', actor, now)
        : keyRevoked(record, actor, now, 'identity_provider');
      const outcome = await deps.keys.revoke(record, now, [event]);
      if (outcome.kind === 'revoked') revoked++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  return revoked;
}

/** Listings of a disabled person's credentials before the delivery fails for the IdP to retry. */
const LISTINGS = 5;
/** The wait between listings: the user index is eventually consistent (a new key shows within a second). */
const LISTING_PAUSE_MS = 250;

/**
 * Ends every active credential of a person just disabled. The list comes from the user index,
 * which a credential minted just before the disabling may not be in yet: the person's slot item,
 * read strongly consistently, names every lineage still live, and the list is read again until
 * none of them is left (or the delivery fails with 503 and the IdP retries it).
 */
async function endEverything(
  deps: OAuthDeps,
  enterprise: EnterpriseDeps,
  signal: Signal & { userId: string },
  issuer: string,
): Promise<number> {
  let revoked = 0;
  const ended = new Set<string>();
  for (let listing = 0; listing < LISTINGS; listing++) {
    const found = await credentialsToEnd(deps, signal, issuer);
    revoked += await revokeAll(deps, found, issuer);
    for (const record of found) ended.add(record.lineage_id);
    const now = deps.now().toISOString();
    const missed = Object.entries(await enterprise.store.heldSlots(signal.userId)).filter(
      ([lineage, expiresAt]) => expiresAt > now && !ended.has(lineage),
    );
    if (missed.length === 0) return revoked;
    await new Promise((resolve) => setTimeout(resolve, LISTING_PAUSE_MS));
  }
  throw new DependencyError('a disabled person still had live credentials after every listing');
}

/** `POST /v1/identity-signals`: verifies the SET and acts on its events; throws `SetError`. */
export async function receiveSignal(deps: OAuthDeps, token: string): Promise<SignalOutcome> {
  const providers = deps.oauth.identityProviders ?? [];
  if (!deps.enterprise || providers.length === 0)
    throw new SetError('invalid_issuer', 'This service trusts no identity provider.');
  const { enterprise } = deps;
  const { store, keySets } = enterprise;
  const set = await verifySet(token, { providers, keySets, audience: deps.oauth.issuer, now: deps.now() });
  const issuer = set.provider.issuer;
  const marker = { issuer, jti: set.jti, until: set.keepUntil };
  if (await store.signalSeen(marker)) return { repeated: true, revoked: 0 };
  let revoked = 0;
  for (const signal of set.signals) {
    const { event, userId } = signal;
    if (event === 'other' || !userId) continue;
    if (event === 'account-enabled') {
      await store.enablePerson(userId, issuer);
      continue;
    }
    if (event === 'session-revoked') {
      revoked += await revokeAll(deps, await credentialsToEnd(deps, signal, issuer), issuer);
      continue;
    }
    await store.disablePerson(userId, { issuer, event, at: deps.now().toISOString() });
    revoked += await endEverything(deps, enterprise, { event, userId }, issuer);
  }
  await store.recordSignal(marker);
  return { repeated: false, revoked };
}
