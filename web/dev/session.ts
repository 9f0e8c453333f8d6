// The dev sign-in of the local pages (`/` and `/consent`): a login token from the local dev
// issuer, kept in memory only, and memberships of the demo workspaces. Never deployed.
import type { ReauthenticateDetail, Workspace } from '../elements.ts';

export const DEMO_WORKSPACES: (Workspace & { role: string })[] = [
  { id: '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61', name: 'Acme Marketing', role: 'editor' },
  { id: '8b1d3c0e-5f7a-4e2b-9c6d-1a2b3c4d5e6f', name: 'Acme Support', role: 'viewer' },
  { id: 'c2a9e7f1-3b4d-4c5e-8f6a-7b8c9d0e1f2a', name: 'Acme Research', role: 'owner' },
];
export type DemoWorkspace = (typeof DEMO_WORKSPACES)[number];

/** Who is signed in. The token lives here only: never in storage, a cookie or a URL. */
export interface DevSession {
  sub: string;
  emailVerified: boolean;
  token: string;
  member: Set<string>;
}

export const $ = <T extends HTMLElement>(selector: string) => document.querySelector(selector) as T;

async function devRequest(method: string, path: string, body?: unknown): Promise<Response> {
  const response = await fetch(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path.split('/').slice(0, 3).join('/')}: ${response.status}`);
  return response;
}

async function mintToken(sub: string, emailVerified: boolean, authAgeSeconds: number): Promise<string> {
  const response = await devRequest('POST', '/_dev/token', {
    sub,
    email_verified: emailVerified,
    auth_age_seconds: authAgeSeconds,
  });
  return ((await response.json()) as { token: string }).token;
}

const membership = (sub: string, id: string) =>
  `/_dev/memberships/${encodeURIComponent(sub)}/${encodeURIComponent(id)}`;

/** Makes the person a member of `workspace` with its demo role, or takes them out. */
export async function setMembership(
  session: DevSession,
  workspace: DemoWorkspace,
  member: boolean,
): Promise<void> {
  if (member) await devRequest('PUT', membership(session.sub, workspace.id), { role: workspace.role });
  else await devRequest('DELETE', membership(session.sub, workspace.id));
  session.member[member ? 'add' : 'delete'](workspace.id);
}

/** What the sign-in form (`#signin-form`) asks: a fresh or a 20-minute-old login for `sub`. */
function readSignInForm(form: HTMLFormElement): {
  sub: string;
  emailVerified: boolean;
  stale: boolean;
} {
  const data = new FormData(form);
  return {
    sub: String(data.get('sub') ?? '').trim(),
    emailVerified: data.get('email_verified') !== null,
    stale: data.get('stale') !== null,
  };
}

/** Signs the form's person in: a token, then no membership yet (the page adds them). */
async function signIn(form: HTMLFormElement): Promise<DevSession> {
  const { sub, emailVerified, stale } = readSignInForm(form);
  const token = await mintToken(sub, emailVerified, stale ? 1200 : 0);
  return { sub, emailVerified, token, member: new Set() };
}

const SIGN_IN_FAILED = 'Sign-in failed: is the local dev issuer on? (It is off when JWT_ISSUER is set.)';

/**
 * Wires the page's sign-in form (`#signin-form`, its error in `#signin-error`) and sign-out button
 * (`#signout`): signed in, the person is a member of every demo workspace; `#signin` and
 * `#session` show whichever applies, and `show` redraws the rest of the page. Returns the current
 * session, read when needed.
 */
export function devSignIn(show: (session: DevSession | undefined) => void): () => DevSession | undefined {
  let session: DevSession | undefined;
  const update = () => {
    $('#signin').hidden = Boolean(session);
    $('#session').hidden = !session;
    if (session) $('#who').textContent = session.sub;
    show(session);
  };
  $<HTMLFormElement>('#signin-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = $('#signin-error');
    error.textContent = '';
    try {
      const signedIn = await signIn(event.currentTarget as HTMLFormElement);
      for (const workspace of DEMO_WORKSPACES) await setMembership(signedIn, workspace, true);
      session = signedIn;
      update();
      $('#signout').focus();
    } catch {
      session = undefined;
      error.textContent = SIGN_IN_FAILED;
      update();
    }
  });
  $('#signout').addEventListener('click', () => {
    session = undefined;
    update();
    $<HTMLInputElement>('#sub').focus();
  });
  update();
  return () => session;
}

/**
 * The elements ask for a fresh sign-in when an action needs a recent login (creating or rotating
 * a key, approving an app, saving a workspace's policy). A real dashboard sends the user through
 * its identity provider (e.g. OIDC with max_age); here the dev issuer signs the same user in again.
 */
export function signInAgain(session: () => DevSession | undefined) {
  return async (event: CustomEvent<ReauthenticateDetail>): Promise<void> => {
    const { detail } = event;
    event.preventDefault();
    const current = session();
    if (!current) return detail.cancel();
    try {
      current.token = await mintToken(current.sub, current.emailVerified, 0);
      detail.resume();
    } catch {
      detail.cancel();
    }
  };
}
