import { grantRevoked, identityProviderActor, keyRevoked } from '#lib/events/model';
import { SetError, type Signal, verifySet } from '#lib/identity/security-events';
import type { KeyRecord } from '#lib/keys/model';
import { activeCredentialsOf } from '#lib/keys/service';
import type { OAuthDeps } from './deps.ts';

/**
 * Identity signals (contract §17): a trusted IdP pushes a security event token when it disables,
 * purges or signs out a person, and this service ends their credentials at once. RISC
 * `account-disabled` and `account-purged` revoke every active credential of the person (API keys,
 * consent grants, enterprise grants); CAEP `session-revoked` revokes their enterprise grants from
 * that IdP. Each revocation is its own transaction with its event (reason `identity_provider`);
 * other events are acknowledged and ignored. A SET acted on is remembered by its `jti`, only once
 * every revocation landed: a delivery that failed midway is retried by the IdP and finishes the
 * rest, and a repeat of one that succeeded writes nothing.
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
          ? record.kind === 'enterprise_grant' && record.grant?.idp === issuer
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
        : keyRevoked(record, actor, now);
      const outcome = await deps.keys.revoke(record, now, [event]);
      if (outcome.kind === 'revoked') revoked++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  return revoked;
}

/** `POST /v1/identity-signals`: verifies the SET and acts on its events; throws `SetError`. */
export async function receiveSignal(deps: OAuthDeps, token: string): Promise<SignalOutcome> {
  const providers = deps.oauth.identityProviders ?? [];
  if (!deps.enterprise || providers.length === 0)
    throw new SetError('invalid_issuer', 'This service trusts no identity provider.');
  const { store, keySets } = deps.enterprise;
  const set = await verifySet(token, { providers, keySets, audience: deps.oauth.issuer, now: deps.now() });
  const marker = { issuer: set.provider.issuer, jti: set.jti, until: set.keepUntil };
  if (await store.signalSeen(marker)) return { repeated: true, revoked: 0 };
  let revoked = 0;
  for (const signal of set.signals) {
    if (signal.event === 'other' || !signal.userId) continue;
    revoked += await revokeAll(
      deps,
      await credentialsToEnd(deps, signal, set.provider.issuer),
      set.provider.issuer,
    );
  }
  await store.recordSignal(marker);
  return { repeated: false, revoked };
}
