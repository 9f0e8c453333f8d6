import { html, nothing, type TemplateResult } from 'lit';
import { idpHost } from '#lib/keys/model';
import { type GrantClient, type KeyEvent, ProblemError } from '../../client/index.ts';
import { limitsSentence } from './limits.ts';

/** How the key pages write dates, counts, ids and events: in the reader's locale. */
export const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
export const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
export const DAY_MS = 86_400_000;

/** A moment as a `<time>` in the reader's locale, or `Never`. */
export const timeOrNever = (iso: string | null) =>
  iso ? html`<time datetime=${iso}>${dateTimeFormat.format(new Date(iso))}</time>` : 'Never';

/** `1 day`, `3 days`. */
export const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
export const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** A workspace the page has no name for. */
export const shortId = (id: string) => `Workspace ${id.slice(0, 8)}`;

/** How a page names an app's identity: the domain its metadata document is published at, or none. */
export const verifiedText = (client: GrantClient) =>
  client.verified_domain ? `verified: ${client.verified_domain}` : 'unverified';

/** Whether a credential is an app (a consent or an enterprise grant) rather than an API key. */
export const isApp = (credential: { kind: string }) => credential.kind !== 'api_key';

/** How the list names where an app came from: the IdP that let it in, or how verified it is. */
export const appOrigin = (key: { kind: string; identity_provider?: string; client?: GrantClient }) =>
  key.kind === 'enterprise_grant'
    ? `through your organisation’s sign-in (${key.identity_provider ?? 'identity provider'})`
    : key.client
      ? verifiedText(key.client)
      : 'unverified';

/** An identity provider as a page names it: its issuer's host. */
export const hostOf = (issuer: string | null): string => (issuer ? idpHost(issuer) : 'unknown');

/** Why a grant ended, after "Access revoked". */
const GRANT_REVOKED_BY = {
  user: '',
  client: ' by the app itself',
  admin: ' by a workspace administrator',
  policy: ' by a workspace’s policy',
  leak: ' as leaked',
  identity_provider: ' by your organisation’s sign-in (it disabled you or ended your session)',
  code_replay: ': its sign-in code was used twice, so it may have been stolen',
  refresh_reuse: ': an old refresh token was used again, so it may have been stolen',
} as const satisfies Record<Extract<KeyEvent, { type: 'grant.revoked' }>['details']['reason'], string>;

/** A message for a failure that is not the API's own answer (network, CORS, not signed in). */
export function describe(err: unknown, what: string): string {
  if (err instanceof ProblemError) return `${what}: ${err.detail || err.title}`;
  return `${what}: the service could not be reached. Check your connection and try again.`;
}

/** Who did it: the person, a leak report, GitHub, an administrator, the app of a grant, or the service itself (expiry). */
export function describeActor(event: KeyEvent): string {
  switch (event.actor.type) {
    case 'user':
      return !event.actor.id || event.actor.id === event.user_id ? 'You' : `User ${event.actor.id}`;
    case 'public_report':
      return 'A public leak report';
    case 'github_secret_scanning':
      return 'GitHub secret scanning';
    case 'workspace_admin':
      return 'A workspace administrator';
    case 'system':
      return 'The service (automatic)';
    case 'oauth_client':
      return 'The app';
    case 'identity_provider':
      return `Your organisation’s sign-in (${hostOf(event.actor.id)})`;
  }
}

/**
 * A readable line per event type; every type of the API has a case (a new one fails the
 * typecheck). `hintOf` names a key the page knows by its hint, `nameOf` a workspace by its name.
 */
export function describeEvent(
  event: KeyEvent,
  hintOf: (keyId: string) => string | undefined,
  nameOf: (workspaceId: string) => string | undefined = () => undefined,
): TemplateResult | string {
  const hint = (id: string | null) => {
    const known = id ? hintOf(id) : undefined;
    return known ? html` (<code>${known}</code>)` : nothing;
  };
  switch (event.type) {
    case 'key.created': {
      const d = event.details;
      const label = d.rotated_from ? html`Created by rotating the previous key` : html`Created “${d.name}”`;
      return html`${label}${hint(event.key_id)}
          <div class="note">${d.scopes.join(', ')}; expires ${dateFormat.format(new Date(d.expires_at))}</div>`;
    }
    case 'key.rotated':
      return html`Rotated into a new key${hint(event.details.replaced_by)}; this one stopped working`;
    case 'key.revoked':
      return html`Revoked${hint(event.key_id)}`;
    case 'key.updated': {
      const { tools_after: tools, limits_after: limits } = event.details;
      const toolsSaid = tools ? tools.join(', ') || 'no tool' : 'every tool its scopes allow';
      const lines = [
        ...(tools !== undefined ? [`Limited to ${toolsSaid}`] : []),
        ...(limits ? [`Limits lowered: ${limitsSentence(limits)}`] : []),
      ];
      return lines.join('; ') || 'Updated';
    }
    case 'key.leak_revoked': {
      const by =
        event.actor.type === 'github_secret_scanning'
          ? ' (GitHub secret scanning)'
          : event.actor.type === 'public_report'
            ? ' (reported publicly)'
            : '';
      return html`Revoked as leaked${by}${hint(event.key_id)}
          ${event.details.source ? html`<div class="note">Found at <code class="wrap">${event.details.source}</code></div>` : nothing}`;
    }
    case 'key.expiring': {
      const days = event.details.days_left;
      return html`Expires in ${plural(days, 'day')}
          <div class="note">on ${dateTimeFormat.format(new Date(event.details.expires_at))}</div>`;
    }
    case 'key.expired':
      return html`Expired${hint(event.key_id)}`;
    case 'key.workspace_removed': {
      const id = event.details.workspace_id;
      const by = event.details.reason === 'admin' ? 'an administrator' : 'the workspace’s policy';
      return html`Removed from ${nameOf(id) ?? shortId(id)} by ${by}${hint(event.key_id)}`;
    }
    case 'grant.created': {
      const d = event.details;
      if (d.via === 'identity_provider')
        return html`Connected “${d.client.name}” through your organisation’s sign-in (${hostOf(d.idp ?? null)})
          <div class="note">${d.scopes.join(', ')}; expires ${dateFormat.format(new Date(d.expires_at))} unless used</div>`;
      return html`Connected “${d.client.name}” (${verifiedText(d.client)})
          <div class="note">${d.scopes.join(', ')}; expires ${dateFormat.format(new Date(d.expires_at))}</div>`;
    }
    case 'grant.updated':
      return `Allowed ${event.details.scopes_added.join(', ')} too`;
    case 'grant.revoked':
      return `Access revoked${GRANT_REVOKED_BY[event.details.reason]}`;
  }
}
