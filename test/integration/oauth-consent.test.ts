import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '#lib/errors';
import { authorize } from '#lib/oauth/authorize';
import type { OAuthClient } from '#lib/oauth/clients';
import { approve, consentView, deny } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import type { OAuthStore } from '#lib/oauth/port';
import { buildRuntime, type Runtime } from '#lib/runtime';
import { createTestTables, manualClock, type TestTables } from '#test/support/dynamo';
import { newMember } from '#test/support/fixtures';

/**
 * The consent API's use cases (contract §15 "The flow" 2) as the consent page sees them, on
 * DynamoDB Local: what it shows of a request and to whom, the redirect each decision sends the
 * browser to, a decision that loses a race to another, and the grant an approval makes.
 */

const RESOURCE = 'https://mcp.example.com/mcp';
const ISSUER = 'https://keys.example.com';
const DAY = 86_400_000;
const NOT_FOUND =
  'This sign-in request does not exist, has expired or was already used; start again from the app.';
const challenge = createHash('sha256').update('v'.repeat(43)).digest('base64url');

const unverified: OAuthClient = {
  client_id: '0b8c7f9e-2222-4222-8222-222222222222',
  client_name: 'Unverified app',
  redirect_uris: ['http://127.0.0.1:7777/callback'],
  verified_domain: null,
  registration: 'dynamic',
};
const verified: OAuthClient = {
  client_id: 'https://app.example.com/oauth/client.json',
  client_name: 'Verified app',
  redirect_uris: ['https://app.example.com/callback'],
  verified_domain: 'app.example.com',
  registration: 'metadata_document',
};

let tables: TestTables;
const clock = manualClock(new Date('2026-11-28T09:00:00.000Z'));
let rt: Runtime;
let oauth: OAuthDeps;

beforeAll(async () => {
  tables = await createTestTables();
  rt = buildRuntime(
    {
      ...tables.config(),
      oauth: {
        issuer: ISSUER,
        consentPageUrl: 'https://dashboard.example.com/consent',
        resources: [RESOURCE],
      },
    },
    { doc: tables.doc, now: clock.now },
  );
  const clients = [unverified, verified];
  oauth = {
    ...(rt.oauth as OAuthDeps),
    clients: async (id) => {
      const client = clients.find((c) => c.client_id === id);
      return client ? { ok: true, client } : { ok: false, error_description: 'unknown' };
    },
  };
});
afterAll(() => tables.drop());

async function requested(client: OAuthClient = unverified, state: string | null = 'st') {
  const outcome = await authorize(oauth, {
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0],
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: RESOURCE,
    scope: 'svc.forms.read svc.forms.write',
    state: state ?? undefined,
  });
  if (outcome.kind !== 'redirect') throw new Error(outcome.message);
  return new URL(outcome.location).searchParams.get('request') as string;
}

/** What a use case was refused with: its code and sentence. */
async function refusal(pending: Promise<unknown>) {
  const err = await pending.then(
    () => new Error('accepted'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return { code: (err as AppError).code, detail: (err as AppError).detail };
}
const notFound = { code: 'request_not_found', detail: NOT_FOUND };

/** Deps whose store runs `before` ahead of the named write: another decision landing first. */
function racing<K extends 'approve' | 'deny' | 'widen'>(
  method: K,
  before: () => Promise<unknown>,
  answer?: Awaited<ReturnType<OAuthStore[K]>>,
): OAuthDeps {
  const store = oauth.store;
  const write = async (...args: unknown[]) => {
    await before();
    if (answer !== undefined) return answer;
    return (store[method] as (...a: unknown[]) => Promise<unknown>).apply(store, args);
  };
  return {
    ...oauth,
    store: new Proxy(store, {
      get: (target, name, receiver) => (name === method ? write : Reflect.get(target, name, receiver)),
    }),
  };
}

describe('what the consent page shows', () => {
  it('is the request’s app, redirect host, scopes, resource and expiry, to the first person who opens it only', async () => {
    const member = await newMember(tables);
    const id = await requested();
    expect(await consentView(oauth, member.userId, id)).toEqual({
      id,
      client: { id: unverified.client_id, name: 'Unverified app', verified_domain: null },
      redirect_host: '127.0.0.1:7777',
      requested_scopes: ['svc.forms.read', 'svc.forms.write'],
      resource: RESOURCE,
      expires_at: '2026-11-28T09:10:00.000Z',
      grant: null,
    });
    const other = await newMember(tables);
    expect(await refusal(consentView(oauth, other.userId, id))).toEqual(notFound);
    expect(await refusal(consentView(oauth, member.userId, '00000000-0000-4000-8000-000000000000'))).toEqual(
      notFound,
    );
  });

  it('is not found from the request’s tenth minute, nor once it is decided', async () => {
    const member = await newMember(tables);
    clock.set(new Date('2026-11-28T09:00:00.000Z'));
    const id = await requested();
    clock.set(new Date('2026-11-28T09:09:59.999Z'));
    await expect(consentView(oauth, member.userId, id)).resolves.toMatchObject({ id });
    clock.set(new Date('2026-11-28T09:10:00.000Z'));
    expect(await refusal(consentView(oauth, member.userId, id))).toEqual(notFound);
    clock.set(new Date('2026-11-28T09:00:00.000Z'));
    const decided = await requested();
    await deny(oauth, member.userId, decided);
    expect(await refusal(consentView(oauth, member.userId, decided))).toEqual(notFound);
  });
});

describe('approving', () => {
  it('makes a grant named after the app, hinted by its redirect host, with a code for 60 s', async () => {
    clock.set(new Date('2026-11-28T09:00:00.000Z'));
    const member = await newMember(tables);
    const id = await requested();
    const { redirect_to } = await approve(oauth, member.userId, id, {
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
      expiresInDays: 7,
    });
    const url = new URL(redirect_to);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:7777/callback');
    expect([...url.searchParams.keys()]).toEqual(['code', 'state', 'iss']);
    expect(url.searchParams.get('state')).toBe('st');
    expect(url.searchParams.get('iss')).toBe(ISSUER);
    const request = await oauth.store.getRequest(id);
    const grant = await rt.service.keys.get(request?.grant_id as string);
    expect(grant).toMatchObject({
      id: request?.grant_id,
      lineage_id: request?.grant_id,
      user_id: member.userId,
      name: 'Unverified app',
      key_hint: '127.0.0.1:7777',
      workspace_ids: [member.workspaceId],
      scopes: ['svc.forms.read'],
      kind: 'oauth_grant',
      created_at: '2026-11-28T09:00:00.000Z',
      expires_at: new Date(Date.parse('2026-11-28T09:00:00.000Z') + 7 * DAY).toISOString(),
      grant: {
        client: request?.client,
        redirect_uri: 'http://127.0.0.1:7777/callback',
        redirect_host: '127.0.0.1:7777',
        resource: RESOURCE,
        code: { until: '2026-11-28T09:01:00.000Z', challenge },
      },
    });
    const { items } = await rt.service.keys.listLineageEvents(grant?.id as string, { limit: 5 });
    expect(items).toMatchObject([{ type: 'grant.created', actor: { type: 'user', id: member.userId } }]);
  });

  it('hints a verified app’s grant by its domain, and sends no state the app did not send', async () => {
    const member = await newMember(tables);
    const id = await requested(verified, null);
    const { redirect_to } = await approve(oauth, member.userId, id, {
      workspaceIds: [member.workspaceId],
      scopes: ['svc.forms.read'],
    });
    expect(new URL(redirect_to).searchParams.has('state')).toBe(false);
    const grant = await rt.service.keys.get((await oauth.store.getRequest(id))?.grant_id as string);
    expect(grant?.key_hint).toBe('app.example.com');
  });

  it('again answers the same redirect; after a denial it is not found', async () => {
    const member = await newMember(tables);
    const input = { workspaceIds: [member.workspaceId], scopes: ['svc.forms.read' as const] };
    const id = await requested();
    const first = await approve(oauth, member.userId, id, input);
    expect(await approve(oauth, member.userId, id, input)).toEqual(first);
    expect(await refusal(deny(oauth, member.userId, id))).toEqual(notFound);
    const denied = await requested();
    await deny(oauth, member.userId, denied);
    expect(await refusal(approve(oauth, member.userId, denied, input))).toEqual(notFound);
  });

  it('that loses to another approval answers that approval’s redirect; to a denial, not found', async () => {
    const member = await newMember(tables);
    const input = { workspaceIds: [member.workspaceId], scopes: ['svc.forms.read' as const] };
    const won = await requested();
    let winner: { redirect_to: string } | undefined;
    const lostToApproval = racing('approve', async () => {
      winner = await approve(oauth, member.userId, won, input);
    });
    const answer = await approve(lostToApproval, member.userId, won, input);
    expect(answer).toEqual(winner);
    expect(new URL(answer.redirect_to).searchParams.get('code')).toMatch(/\S/);

    // Another person: this one's grant would be widened, not made.
    const other = await newMember(tables);
    const lost = await requested();
    const lostToDenial = racing('approve', () => deny(oauth, other.userId, lost));
    expect(
      await refusal(
        approve(lostToDenial, other.userId, lost, {
          workspaceIds: [other.workspaceId],
          scopes: ['svc.forms.read'],
        }),
      ),
    ).toEqual(notFound);
  });
});

describe('denying', () => {
  it('sends the app access_denied with its state and the issuer, and again the same', async () => {
    const member = await newMember(tables);
    const id = await requested();
    const { redirect_to } = await deny(oauth, member.userId, id);
    const url = new URL(redirect_to);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:7777/callback');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The person declined to connect the app.',
      state: 'st',
      iss: ISSUER,
    });
    expect(await deny(oauth, member.userId, id)).toEqual({ redirect_to });
    expect((await oauth.store.getRequest(id))?.decision).toBe('denied');
  });

  it('that loses to another denial answers the same; to an approval, not found', async () => {
    const member = await newMember(tables);
    const id = await requested();
    const lostToDenial = racing('deny', () => deny(oauth, member.userId, id));
    expect((await deny(lostToDenial, member.userId, id)).redirect_to).toMatch(/error=access_denied/);

    const approved = await requested();
    const lostToApproval = racing('deny', () =>
      approve(oauth, member.userId, approved, {
        workspaceIds: [member.workspaceId],
        scopes: ['svc.forms.read'],
      }),
    );
    expect(await refusal(deny(lostToApproval, member.userId, approved))).toEqual(notFound);
  });
});

describe('a widening that loses a race', () => {
  async function liveGrant() {
    const member = await newMember(tables);
    const input = { workspaceIds: [member.workspaceId], scopes: ['svc.forms.read' as const] };
    await approve(oauth, member.userId, await requested(), input);
    return { member, input };
  }

  it('to a change of the grant is a conflict, and the request stays undecided', async () => {
    const { member, input } = await liveGrant();
    const id = await requested();
    const changed = racing('widen', async () => undefined, 'grant_changed');
    expect(await refusal(approve(changed, member.userId, id, input))).toEqual({
      code: 'conflict',
      detail:
        'The app’s access changed while you were approving (revoked, cut off or widened elsewhere); start again from the app.',
    });
    expect((await oauth.store.getRequest(id))?.decision).toBeUndefined();
  });

  it('to another decision answers what it decided', async () => {
    const { member, input } = await liveGrant();
    const id = await requested();
    let winner: { redirect_to: string } | undefined;
    const lost = racing('widen', async () => {
      winner = await approve(oauth, member.userId, id, input);
    });
    expect(await approve(lost, member.userId, id, input)).toEqual(winner);
  });
});
