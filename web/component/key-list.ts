import { html, nothing, type TemplateResult } from 'lit';
import type { KeyListItem, KeyMetadata } from '../client/index.ts';
import { sparkline } from './shared/charts.ts';
import type { Workspace } from './shared/dialogs.ts';
import {
  appOrigin,
  capitalize,
  DAY_MS,
  dateFormat,
  dateTimeFormat,
  isApp,
  plural,
  shortId,
} from './shared/format.ts';
import type { RowUsage } from './shared/lazy-usage.ts';
import { limitsText } from './shared/limits.ts';
import { toolsText } from './shared/tools.ts';
import { rowCalls, rowCallsNotes, rowCallsText } from './shared/usage-figures.ts';

export interface KeyListView {
  signedIn: boolean;
  keys: readonly KeyListItem[];
  loading: boolean;
  loadError: string | undefined;
  nextCursor: string | null;
  /** Revoked and expired keys are listed too. */
  showAll: boolean;
  /** The last action's outcome: shown on screen and announced to screen readers. */
  announcement: string;
  /** The user's workspaces, to name a key's workspaces and flag the ones the user left. */
  workspaces: readonly Workspace[] | undefined;
  /** Loads the first page again, or the next one. */
  load: (more: boolean) => void;
  filter: (showAll: boolean) => void;
  /** A row's day usage over the last 30 days, once its row has been in view. */
  usageOf: (keyId: string) => RowUsage | undefined;
  /** Each opens its dialog from the clicked button (focus returns there). */
  create: (event: Event) => void;
  history: (key: KeyMetadata, event: Event) => void;
  usage: (key: KeyMetadata, event: Event) => void;
  rotate: (key: KeyMetadata, event: Event) => void;
  revoke: (key: KeyMetadata, event: Event) => void;
  lowerLimits: (key: KeyMetadata, event: Event) => void;
}

/** The key page: its title and Create button, the filter, the list of keys and the connected apps. */
export function keyList(view: KeyListView): TemplateResult {
  return html`
    <section aria-labelledby="title">
      <div class="bar">
        <h2 id="title">MCP API keys</h2>
        <button id="create" class="primary" ?disabled=${!view.signedIn} @click=${view.create}>Create key</button>
      </div>
      <p class="intro">
        A key lets an AI client that speaks MCP reach the workspaces you choose, with the scopes you
        choose. Treat it like a password: one key per device, kept in an environment variable.
      </p>
      <label class="filter">
        <input type="checkbox" .checked=${view.showAll}
          @change=${(e: Event) => view.filter((e.target as HTMLInputElement).checked)} />
        Show revoked and expired keys and apps
      </label>
      <p class=${view.announcement ? 'notice' : 'visually-hidden'} role="status">${view.announcement}</p>
      ${
        view.loadError
          ? html`<div class="error" role="alert">${view.loadError}
          <button @click=${() => view.load(false)}>Try again</button></div>`
          : nothing
      }
      ${keyTable(view)}
    </section>
  `;
}

/** The user's keys, then the apps they connected through OAuth, each as a table; "Load more" pages both. */
function keyTable(view: KeyListView): TemplateResult {
  if (!view.signedIn) return html`<p>Sign in to manage your keys.</p>`;
  if (!view.keys.length) {
    return html`<p aria-busy=${view.loading}>${view.loading ? 'Loading your keys…' : 'No keys yet. Create one to connect an MCP client.'}</p>`;
  }
  const known = view.workspaces ? new Map(view.workspaces.map((w) => [w.id, w])) : undefined;
  const keys = view.keys.filter((k) => !isApp(k));
  const apps = view.keys.filter(isApp);
  return html`
    ${
      keys.length
        ? html`<div class="scroll">
        <table aria-busy=${view.loading}>
          <caption class="visually-hidden">Your MCP API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes and tools</th>
              <th scope="col">Workspaces</th><th scope="col">Status</th><th scope="col">Expires</th>
              <th scope="col">Last used</th><th scope="col">Calls</th><th scope="col">Limits</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>${keys.map((key) => keyRow(key, known, view))}</tbody>
        </table>
      </div>`
        : html`<p>No keys yet. Create one to connect an MCP client.</p>`
    }
    ${apps.length ? appTable(apps, known, view) : nothing}
    ${view.nextCursor ? html`<button ?disabled=${view.loading} @click=${() => view.load(true)}>Load more</button>` : nothing}
  `;
}

/** The apps connected through OAuth (contract §15): revocable like a key, never rotated (the app rotates its own tokens). */
function appTable(
  apps: readonly KeyListItem[],
  known: Map<string, Workspace> | undefined,
  view: KeyListView,
): TemplateResult {
  return html`
    <section aria-labelledby="apps-title">
      <h3 id="apps-title">Connected apps</h3>
      <p class="note">Apps you approved on a sign-in page, such as ChatGPT or Claude, and apps your organisation’s sign-in let in. Each holds tokens it renews itself; revoke an app to cut it off at once.</p>
      <div class="scroll">
        <table aria-busy=${view.loading}>
          <caption class="visually-hidden">Apps connected to your MCP access</caption>
          <thead>
            <tr>
              <th scope="col">App</th><th scope="col">Returns to</th><th scope="col">Scopes and tools</th>
              <th scope="col">Workspaces</th><th scope="col">Status</th><th scope="col">Expires</th>
              <th scope="col">Last used</th><th scope="col">Calls</th><th scope="col">Limits</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>${apps.map((app) => keyRow(app, known, view))}</tbody>
        </table>
      </div>
    </section>
  `;
}

/** A key's row, or a connected app's: its name with how verified it is, and where it returns to. */
function keyRow(
  key: KeyListItem,
  known: Map<string, Workspace> | undefined,
  view: KeyListView,
): TemplateResult {
  const isMember = (id: string) => !known || (known.get(id)?.member !== false && known.has(id));
  const noAccess = key.status === 'active' && !key.workspace_ids.some(isMember);
  const daysLeft = Math.ceil((Date.parse(key.expires_at) - Date.now()) / DAY_MS);
  const app = isApp(key);
  const trusted = key.kind === 'enterprise_grant' || Boolean(key.client?.verified_domain);
  return html`
    <tr>
      ${
        app
          ? html`<th scope="row">${key.name}
            <div class=${trusted ? 'note' : 'note warn'}>${appOrigin(key)}</div></th>
          <td>${key.kind === 'enterprise_grant' ? html`<span class="note">None: no sign-in page</span>` : html`<code>${key.redirect_host ?? key.key_hint}</code>`}</td>`
          : html`<th scope="row">${key.name}</th>
          <td><code>${key.key_hint}</code></td>`
      }
      <td><ul class="plain">${key.scopes.map((s) => html`<li>${s}</li>`)}</ul>${toolsNote(key, known)}</td>
      <td>
        <ul class="plain">
          ${key.workspace_ids.map((id) => {
            const name = known?.get(id)?.name ?? shortId(id);
            return isMember(id)
              ? html`<li>${name}</li>`
              : html`<li class="warn">${name} (you left this workspace)</li>`;
          })}
          ${(key.removed_workspace_ids ?? []).map(
            (id) =>
              html`<li class="warn">Removed from ${known?.get(id)?.name ?? shortId(id)} by an administrator</li>`,
          )}
        </ul>
      </td>
      <td>${noAccess ? noAccessStatus() : keyStatus(key, view.keys)}</td>
      <td><time datetime=${key.expires_at}>${dateFormat.format(new Date(key.expires_at))}</time>
        ${key.status === 'active' && daysLeft <= 7 ? html`<div class="note">in ${plural(daysLeft, 'day')}</div>` : nothing}</td>
      <td>${key.last_used_at ? html`<time datetime=${key.last_used_at}>${dateTimeFormat.format(new Date(key.last_used_at))}</time>` : 'Never'}</td>
      <td class="usage-cell" data-usage=${key.id}>${usageCell(key, view)}</td>
      <td class="limits">${limitsCell(key, known, view)}</td>
      <td class="actions">${keyActions(key, view)}</td>
    </tr>
  `;
}

/** Its own tools (contract §19), then what a workspace's policy leaves it there, where one narrows them. */
function toolsNote(key: KeyMetadata, known: Map<string, Workspace> | undefined): TemplateResult {
  const narrowed = Object.entries(key.workspace_rules ?? {}).filter(([, rules]) => rules.tools);
  return html`<div class="note">Tools: ${toolsText(key.tools)}</div>
    ${narrowed.map(
      ([id, rules]) =>
        html`<div class="note">In ${known?.get(id)?.name ?? shortId(id)}, the workspace’s policy allows only ${toolsText(rules.tools ?? [])}</div>`,
    )}`;
}

function noAccessStatus(): TemplateResult {
  return html`<span class="status no-access">No access</span>
    <div class="note">You are no longer in any of its workspaces, so it grants nothing.</div>`;
}

/** Active, Expired, Revoked, or Rotated for a key that a rotation replaced (with the key that replaced it). */
function keyStatus(key: KeyMetadata, keys: readonly KeyMetadata[]): TemplateResult {
  if (key.status !== 'revoked' || !key.replaced_by) {
    return html`<span class="status ${key.status}">${capitalize(key.status)}</span>`;
  }
  const replacement = keys.find((k) => k.id === key.replaced_by);
  return html`<span class="status rotated">Rotated</span>
    <div class="note">Replaced by ${replacement ? html`<code>${replacement.key_hint}</code>` : 'a newer key'}</div>`;
}

/**
 * The 30-day sparkline (once its row has been seen), the calls of the last 7 days as they agree with
 * its last use (refused ones said so, a use not counted yet said so), and the usage panel's button.
 */
function usageCell(key: KeyListItem, view: KeyListView): TemplateResult {
  const usage = view.usageOf(key.id);
  const loaded = usage?.state === 'loaded' ? usage.usage : undefined;
  const calls = rowCalls(key, loaded);
  const picture = loaded
    ? sparkline(loaded.buckets, calls.notCounted)
    : html`<div class="note">${usage?.state === 'failed' ? 'No chart' : '…'}</div>`;
  return html`${picture}<div class="note">${rowCallsText(calls)}</div>${rowCallsNotes(calls)}
    <button class="small" @click=${(e: Event) => view.usage(key, e)}>Usage<span class="visually-hidden"> of ${key.name}</span></button>`;
}

/**
 * What limits its calls (contract §19), each with its calls counted in the window ("312 of 1,000
 * today", a workspace's cap named), and "Lower limits" for an active key or app.
 */
function limitsCell(
  key: KeyMetadata,
  known: Map<string, Workspace> | undefined,
  view: KeyListView,
): TemplateResult {
  const nameOf = (id: string) => known?.get(id)?.name ?? shortId(id);
  return html`${limitsText(key, nameOf)}${
    key.status === 'active'
      ? html`<button class="small" @click=${(e: Event) => view.lowerLimits(key, e)}>Lower limits<span class="visually-hidden"> of ${key.name}</span></button>`
      : nothing
  }`;
}

/** History always; Rotate for an active key; Revoke for an active key or app. */
function keyActions(key: KeyMetadata, view: KeyListView): TemplateResult {
  const history = html`<button @click=${(e: Event) => view.history(key, e)}>History<span class="visually-hidden"> of ${key.name}</span></button>`;
  if (key.status !== 'active') return history;
  return html`
    ${history}
    ${
      isApp(key)
        ? nothing
        : html`<button @click=${(e: Event) => view.rotate(key, e)}>Rotate<span class="visually-hidden"> ${key.name}</span></button>`
    }
    <button class="danger" @click=${(e: Event) => view.revoke(key, e)}>Revoke<span class="visually-hidden"> ${key.name}</span></button>
  `;
}
