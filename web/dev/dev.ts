// The page `npm start` serves at `/`: a dev sign-in (the local dev issuer) around the
// <svc-mcp-api-keys> element, as a dashboard would host it. Never deployed.
import { html, render } from 'lit';
import '../elements.ts';
import {
  $,
  DEMO_WORKSPACES,
  type DemoWorkspace,
  type DevSession,
  devSignIn,
  setMembership,
  signInAgain,
} from './session.ts';

const keys = $<HTMLElementTagNameMap['svc-mcp-api-keys']>('svc-mcp-api-keys');
// The workspace every dev user owns: its administrators' view (contract §12).
const OWNED = DEMO_WORKSPACES.find((w) => w.role === 'owner') as DemoWorkspace;
const governance = $<HTMLElementTagNameMap['svc-mcp-workspace-keys']>('svc-mcp-workspace-keys');
governance.workspaceId = OWNED.id;
governance.workspaceName = OWNED.name;

function show(session: DevSession | undefined): void {
  const currentToken = () => session?.token ?? '';
  keys.workspaces = DEMO_WORKSPACES.map((w) => ({ ...w, member: session?.member.has(w.id) ?? false }));
  keys.getToken = session ? currentToken : undefined;
  governance.getToken = session?.member.has(OWNED.id) ? currentToken : undefined;
  governance.hidden = !session?.member.has(OWNED.id);
  if (!session) return;
  const member = session.member;
  const toggle = async (workspace: DemoWorkspace) => {
    await setMembership(session, workspace, !member.has(workspace.id));
    show(session);
  };
  render(
    DEMO_WORKSPACES.map(
      (w) => html`<li>
        <span>${w.name} (${member.has(w.id) ? w.role : 'not a member'})</span>
        <button type="button" @click=${() => toggle(w)}>
          ${member.has(w.id) ? `Leave ${w.name}` : `Join ${w.name} as ${w.role}`}
        </button>
      </li>`,
    ),
    $('#workspaces'),
  );
}

const reauthenticate = signInAgain(devSignIn(show));
keys.addEventListener('svc-mcp-reauthenticate', reauthenticate);
governance.addEventListener('svc-mcp-reauthenticate', reauthenticate);
