// The page `npm start` serves at `/`: a dev sign-in (the local dev issuer) around the
// <svc-mcp-api-keys> element, as a dashboard would host it. Never deployed.
import { html, render } from 'lit';
import '../elements.ts';
import type { ReauthenticateDetail, Workspace } from '../elements.ts';

const DEMO_WORKSPACES: (Workspace & { role: string })[] = [
  { id: '3f0e6a52-8a4b-4f5e-9d3c-2b1a0c9e7d61', name: 'Acme Marketing', role: 'editor' },
  { id: '8b1d3c0e-5f7a-4e2b-9c6d-1a2b3c4d5e6f', name: 'Acme Support', role: 'viewer' },
  { id: 'c2a9e7f1-3b4d-4c5e-8f6a-7b8c9d0e1f2a', name: 'Acme Research', role: 'owner' },
];

// The token lives in this variable only: never in storage, a cookie or a URL.
let session: { sub: string; emailVerified: boolean; token: string; member: Set<string> } | undefined;

const currentToken = () => session?.token ?? '';
const $ = <T extends HTMLElement>(selector: string) => document.querySelector(selector) as T;
const keys = $<HTMLElementTagNameMap['svc-mcp-api-keys']>('svc-mcp-api-keys');
// The workspace every dev user owns: its administrators' view (contract §12).
const OWNED = DEMO_WORKSPACES.find((w) => w.role === 'owner') as (typeof DEMO_WORKSPACES)[number];
const governance = $<HTMLElementTagNameMap['svc-mcp-workspace-keys']>('svc-mcp-workspace-keys');
governance.workspaceId = OWNED.id;
governance.workspaceName = OWNED.name;

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

async function setMember(workspace: (typeof DEMO_WORKSPACES)[number], member: boolean): Promise<void> {
  if (!session) return;
  if (member) await devRequest('PUT', membership(session.sub, workspace.id), { role: workspace.role });
  else await devRequest('DELETE', membership(session.sub, workspace.id));
  session.member[member ? 'add' : 'delete'](workspace.id);
  showSession();
}

function showSession(): void {
  $('#signin').hidden = Boolean(session);
  $('#session').hidden = !session;
  keys.workspaces = DEMO_WORKSPACES.map((w) => ({ ...w, member: session?.member.has(w.id) ?? false }));
  keys.getToken = session ? currentToken : undefined;
  governance.getToken = session?.member.has(OWNED.id) ? currentToken : undefined;
  governance.hidden = !session?.member.has(OWNED.id);
  if (!session) return;
  $('#who').textContent = session.sub;
  const member = session.member;
  render(
    DEMO_WORKSPACES.map(
      (w) => html`<li>
        <span>${w.name} (${member.has(w.id) ? w.role : 'not a member'})</span>
        <button type="button" @click=${() => setMember(w, !member.has(w.id))}>
          ${member.has(w.id) ? `Leave ${w.name}` : `Join ${w.name} as ${w.role}`}
        </button>
      </li>`,
    ),
    $('#workspaces'),
  );
}

$<HTMLFormElement>('#signin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.currentTarget as HTMLFormElement);
  const sub = String(form.get('sub') ?? '').trim();
  const emailVerified = form.get('email_verified') !== null;
  const error = $('#signin-error');
  error.textContent = '';
  try {
    const token = await mintToken(sub, emailVerified, form.get('stale') === null ? 0 : 1200);
    session = { sub, emailVerified, token, member: new Set() };
    for (const workspace of DEMO_WORKSPACES) await setMember(workspace, true);
    $('#signout').focus();
  } catch {
    session = undefined;
    error.textContent = 'Sign-in failed: is the local dev issuer on? (It is off when JWT_ISSUER is set.)';
  }
  showSession();
});

$('#signout').addEventListener('click', () => {
  session = undefined;
  showSession();
  $<HTMLInputElement>('#sub').focus();
});

// The elements ask for a fresh sign-in when an action needs a recent login (creating or rotating
// a key, saving a workspace's policy). A real dashboard sends the user through its identity
// provider (e.g. OIDC with max_age); here the dev issuer signs the same user in again.
async function signInAgain(event: CustomEvent<ReauthenticateDetail>): Promise<void> {
  const { detail } = event;
  event.preventDefault();
  if (!session) return detail.cancel();
  try {
    session.token = await mintToken(session.sub, session.emailVerified, 0);
    detail.resume();
  } catch {
    detail.cancel();
  }
}
keys.addEventListener('svc-mcp-reauthenticate', signInAgain);
governance.addEventListener('svc-mcp-reauthenticate', signInAgain);

showSession();
