// The page `npm start` serves at `/consent` (its OAuth `consentPageUrl`): the key page's dev
// sign-in around <svc-mcp-consent>, as a dashboard would host it. Never deployed.
import '../component/consent/svc-mcp-consent.ts';
import type {} from '../elements.ts'; // the tag and event types only
import { $, DEMO_WORKSPACES, devSignIn, signInAgain } from './session.ts';

const consent = $<HTMLElementTagNameMap['svc-mcp-consent']>('svc-mcp-consent');
// The authorization endpoint sent the browser here with `?request=<id>`.
consent.requestId = new URLSearchParams(location.search).get('request') ?? '';

const session = devSignIn((signedIn) => {
  // Signed in, the person is a member of every demo workspace (the key page's sign-in does the same).
  consent.workspaces = DEMO_WORKSPACES.filter((w) => signedIn?.member.has(w.id));
  consent.getToken = signedIn ? () => signedIn.token : undefined;
});

consent.addEventListener('svc-mcp-reauthenticate', signInAgain(session));
