import { html, type LitElement, nothing, type ReactiveController, type TemplateResult } from 'lit';
import { toolsOfScopes } from '#lib/access/tools';
import { createKeysClient, type KeysClient, type Scope } from '../../client/index.ts';
import { type ClientHost, ElementClient } from './client.ts';

/**
 * The MCP server's tools as the elements offer them (contract §19): the catalogue read once, the
 * checkboxes of the tools a credential's scopes allow, and how a page names a credential's tools.
 * Which scope allows which tool is the API's own rule (`toolsOfScopes`, lib/access/tools.ts).
 */

/** One tool of the catalogue: its name, the scope it needs, its title, whether it destroys data. */
export type McpTool = Awaited<ReturnType<KeysClient['tools']>>['data'][number];

/** The catalogue as an element holds it: being read, read, or unreadable. */
export type Catalogue =
  | { state: 'loading' }
  | { state: 'loaded'; tools: readonly McpTool[] }
  | { state: 'failed' };

/**
 * The catalogue (`GET /v1/mcp/tools`, any signed-in person) of an element, read with the keys
 * client once someone is signed in, and again only for another API origin, or after a failure
 * once another person signs in. Read without a sign-in prompt, as the elements' other reads.
 */
export class ToolCatalogue implements ReactiveController {
  readonly #host: LitElement & ClientHost;
  readonly #client: ElementClient<KeysClient>;
  #current: Catalogue = { state: 'loading' };
  /** The API origin it was read (or is being read) from, and with which sign-in. */
  #readFrom: { baseUrl: string; getToken: ClientHost['getToken'] } | undefined;

  constructor(host: LitElement & ClientHost) {
    this.#host = host;
    this.#client = new ElementClient(host, undefined, createKeysClient);
    host.addController(this);
  }

  get current(): Catalogue {
    return this.#current;
  }

  hostUpdated(): void {
    const { baseUrl, getToken } = this.#host;
    if (!getToken) return;
    const read = this.#readFrom;
    const again = this.#current.state === 'failed' && read?.getToken !== getToken;
    if (read?.baseUrl === baseUrl && !again) return;
    this.#readFrom = { baseUrl, getToken };
    this.#current = { state: 'loading' };
    void this.#client.api.tools().then(
      ({ data }) => this.#settle(baseUrl, { state: 'loaded', tools: data }),
      () => this.#settle(baseUrl, { state: 'failed' }),
    );
  }

  #settle(baseUrl: string, catalogue: Catalogue): void {
    if (this.#readFrom?.baseUrl !== baseUrl) return; // another origin meanwhile
    this.#current = catalogue;
    this.#host.requestUpdate();
  }
}

/** The catalogue's tools that the scopes allow (implied scopes included), in catalogue order. */
export function offeredTools(catalogue: Catalogue, scopes: readonly Scope[]): McpTool[] {
  if (catalogue.state !== 'loaded') return [];
  const allowed = toolsOfScopes(catalogue.tools, scopes);
  return catalogue.tools.filter((t) => allowed.includes(t.name));
}

/**
 * The `tools` to send: the ticked ones when some offered tool is unticked, else undefined (every
 * tool the scopes allow, as when the catalogue could not be read).
 */
export function chosenTools(
  catalogue: Catalogue,
  scopes: readonly Scope[],
  unticked: ReadonlySet<string>,
): string[] | undefined {
  const offered = offeredTools(catalogue, scopes).map((t) => t.name);
  return offered.some((name) => unticked.has(name))
    ? offered.filter((name) => !unticked.has(name))
    : undefined;
}

export interface ToolChoicesView {
  catalogue: Catalogue;
  /** The scopes chosen: the tools they allow are offered. */
  scopes: readonly Scope[];
  /** The tools the person unticked; every other tool offered is ticked. */
  unticked: ReadonlySet<string>;
  toggle: (tool: string, on: boolean) => void;
  /** What the credential is, in the hint: "key" or "app". */
  what: 'key' | 'app';
  invalid?: boolean;
}

/** A checkbox a tool: its title and name, and a destructive one said so. */
function toolBox(tool: McpTool, view: ToolChoicesView): TemplateResult {
  return html`<label class="check"><input type="checkbox" name="tool" value=${tool.name}
    .checked=${!view.unticked.has(tool.name)}
    @change=${(e: Event) => view.toggle(tool.name, (e.target as HTMLInputElement).checked)} />
    ${toolLabel(tool)}</label>`;
}

/** A tool as a checkbox names it: its name, its title, and whether the deployment says it destroys data. */
export const toolLabel = (tool: McpTool): TemplateResult =>
  html`<code>${tool.name}</code> ${tool.title}${tool.destructive ? html` <strong class="warn">(destroys data)</strong>` : nothing}`;

/**
 * The Tools fieldset of the create form and the consent page: every tool the chosen scopes allow,
 * ticked unless the person unticked it; a tool a newly chosen scope allows comes ticked.
 */
export function toolChoices(view: ToolChoicesView): TemplateResult {
  const offered = offeredTools(view.catalogue, view.scopes);
  const hint =
    view.catalogue.state === 'loading'
      ? 'Loading the tools…'
      : view.catalogue.state === 'failed'
        ? `The tools could not be loaded: the ${view.what} may call every tool its scopes allow.`
        : offered.length
          ? `What an AI client may call with this ${view.what}, among the tools its scopes allow. Untick those it does not need: it is refused them.`
          : 'Choose a scope to see the tools it allows.';
  return html`
    <fieldset aria-describedby="tools-hint" aria-invalid=${view.invalid === true}>
      <legend>Tools</legend>
      <p class="hint" id="tools-hint">${hint}</p>
      ${offered.map((tool) => toolBox(tool, view))}
    </fieldset>
  `;
}

/** A credential's own tools as the pages say them: every tool its scopes allow, none, or the list. */
export function toolsText(tools: readonly string[] | null): string {
  if (tools === null) return 'every tool its scopes allow';
  return tools.length ? tools.join(', ') : 'no tool';
}

/** `a`, `a and b`, `a, b and c`. */
export function listed(names: readonly string[]): string {
  if (names.length < 2) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** A set with the item added (`on`) or taken out. */
export function toggled<T>(set: ReadonlySet<T>, item: T, on: boolean): ReadonlySet<T> {
  const next = new Set(set);
  if (on) next.add(item);
  else next.delete(item);
  return next;
}
