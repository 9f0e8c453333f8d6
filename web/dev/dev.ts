// The page `npm start` serves at `/`: a dev sign-in (the local dev issuer) around the
// <svc-mcp-api-keys> element, as a dashboard would host it. Never deployed.
import { html, render } from 'lit';
import '../elements.ts';
import {
  $,
  DEMO_WORKSPACES,
  type DemoWorkspace,
  type DevSession,
  SIGN_IN_FAILED,
  setMembership,
  signIn,
  signInAgain,
} from './session.ts';

let session: DevSession | undefined;

const currentToken = () => session?.token ?? '';
const keys = $<HTMLElementTagNameMap['svc-mcp-api-keys']>('svc-mcp-api-keys');
// The workspace every dev user owns: its administrators' view (contract §12).
const OWNED = DEMO_WORKSPACES.find((w) => w.role === 'owner') as DemoWorkspace;
const governance = $<HTMLElementTagNameMap['svc-mcp-workspace-keys']>('svc-mcp-workspace-keys');
governance.workspaceId = OWNED.id;
governance.workspaceName = OWNED.name;

async function setMember(workspace: DemoWorkspace, member: boolean): Promise<void> {
  if (!session) return;
  await setMembership(session, workspace, member);
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
  const error = $('#signin-error');
  error.textContent = '';
  try {
    session = await signIn(event.currentTarget as HTMLFormElement);
    for (const workspace of DEMO_WORKSPACES) await setMember(workspace, true);
    $('#signout').focus();
  } catch {
    session = undefined;
    error.textContent = SIGN_IN_FAILED;
  }
  showSession();
});

$('#signout').addEventListener('click', () => {
  session = undefined;
  showSession();
  $<HTMLInputElement>('#sub').focus();
});

const reauthenticate = signInAgain(() => session);
keys.addEventListener('svc-mcp-reauthenticate', reauthenticate);
governance.addEventListener('svc-mcp-reauthenticate', reauthenticate);

showSession();
