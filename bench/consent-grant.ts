import { createHash } from 'node:crypto';
import { authorize } from '#lib/oauth/authorize';
import type { OAuthClient } from '#lib/oauth/clients';
import { approve } from '#lib/oauth/consent';
import type { OAuthDeps } from '#lib/oauth/deps';
import { token } from '#lib/oauth/token';

/** The app of the bench's grants: identified by a metadata document (as if fetched). */
export const BENCH_APP: OAuthClient = {
  client_id: 'https://app.bench.example/client.json',
  client_name: 'Bench app',
  redirect_uris: ['https://app.bench.example/callback'],
  verified_domain: 'app.bench.example',
  registration: 'metadata_document',
};

/**
 * A consent grant's first tokens, through the use cases (contract §15): `app` asks for `resource`,
 * the person approves `workspaceIds` for read, and the code is redeemed.
 */
export async function consentGrantTokens(
  oauth: OAuthDeps,
  app: OAuthClient,
  person: { userId: string; workspaceIds: string[] },
  resource?: string,
) {
  const verifier = 'b'.repeat(43);
  const redirectUri = app.redirect_uris[0] as string;
  const outcome = await authorize(oauth, {
    client_id: app.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(resource && { resource }),
  });
  if (outcome.kind !== 'redirect') throw new Error(outcome.message);
  const requestId = new URL(outcome.location).searchParams.get('request') as string;
  const { redirect_to } = await approve(oauth, person.userId, requestId, {
    workspaceIds: person.workspaceIds,
    scopes: ['svc.forms.read'],
  });
  return token(oauth, {
    grant_type: 'authorization_code',
    code: new URL(redirect_to).searchParams.get('code') as string,
    client_id: app.client_id,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
}
