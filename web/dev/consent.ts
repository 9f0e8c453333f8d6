// The page `npm start` serves at `/consent` (its OAuth `consentPageUrl`): the key page's dev
// sign-in around <svc-mcp-consent>, as a dashboard would host it. Never deployed.
import '../component/consent/svc-mcp-consent.ts';
import type {} from '../elements.ts'; // the tag and event types only
import {
  $,
  DEMO_WORKSPACES,
  type DevSession,
  SIGN_IN_FAILED,
  setMembership,
  signIn,
  signInAgain,
} from './session.ts';

let session: DevSession | undefined;

const consent = $<HTMLElementTagNameMap['svc-mcp-consent']>('svc-mcp-consent');
// The authorization endpoint sent the browser here with `?request=<id>`.
consent.requestId = new URLSearchParams(location.search).get('request') ?? '';

function showSession(): void {
  $('#signin').hidden = Boolean(session);
  $('#session').hidden = !session;
  // Signed in, the person is a member of every demo workspace (the key page's sign-in does the same).
  consent.workspaces = DEMO_WORKSPACES.filter((w) => session?.member.has(w.id));
  consent.getToken = session ? () => session?.token ?? '' : undefined;
  if (session) $('#who').textContent = session.sub;
}

$<HTMLFormElement>('#signin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = $('#signin-error');
  error.textContent = '';
  try {
    const signedIn = await signIn(event.currentTarget as HTMLFormElement);
    for (const workspace of DEMO_WORKSPACES) await setMembership(signedIn, workspace, true);
    session = signedIn;
    showSession();
    $('#signout').focus();
  } catch {
    session = undefined;
    error.textContent = SIGN_IN_FAILED;
    showSession();
  }
});

$('#signout').addEventListener('click', () => {
  session = undefined;
  showSession();
  $<HTMLInputElement>('#sub').focus();
});

consent.addEventListener(
  'svc-mcp-reauthenticate',
  signInAgain(() => session),
);

showSession();
