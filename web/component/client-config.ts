import { css, html, LitElement, type TemplateResult } from 'lit';
import { property, state } from 'lit/decorators.js';
import {
  DEFAULT_ENV_VAR,
  KEY_PLACEHOLDER,
  type McpClientConfig,
  mcpClientConfigs,
  OAUTH_ONLY_CLIENTS,
  shellLine,
} from '../client/mcp-clients.ts';

const OAUTH_ONLY = 'oauth-only';
/** The client picked last (not a secret), so that the next key opens on it. */
const REMEMBERED = 'svc-mcp-client';

/**
 * The configuration of the person's MCP client, picked from a list, with the shell line that
 * sets the variable: shown in the key page's shown-once dialog, under the key. The key is shown
 * only once on the page (in the dialog's key field): here a placeholder stands for it, and the
 * copy buttons put the key in its place. It holds the key only as long as the dialog.
 */
export class SvcMcpClientConfig extends LitElement {
  /** The MCP endpoint URL. */
  @property({ attribute: false }) accessor url = '';
  /** @default SVC_MCP_API_KEY */
  @property({ attribute: false }) accessor envVar = DEFAULT_ENV_VAR;
  @property({ attribute: false }) accessor apiKey = '';
  @state() private accessor client = remembered() ?? 'claude-code';
  @state() private accessor copied = '';

  /** What is shown (a placeholder for the key), or what is copied (the key). */
  private configs(withKey: boolean): McpClientConfig[] {
    return mcpClientConfigs({ url: this.url, envVar: this.envVar, ...(withKey && { apiKey: this.apiKey }) });
  }

  private pick(event: Event): void {
    this.client = (event.target as HTMLSelectElement).value;
    this.copied = '';
    try {
      localStorage.setItem(REMEMBERED, this.client);
    } catch {
      // storage disabled: the choice is simply not remembered
    }
  }

  private async copy(what: string, text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      this.copied = `${what} copied.`;
    } catch {
      this.copied = `Couldn’t copy; select the ${what.toLowerCase()} and copy it.`;
    }
  }

  override render(): TemplateResult {
    const configs = this.configs(false);
    // A remembered client this version no longer offers falls back to the first one.
    const chosen =
      configs.find((c) => c.id === this.client) ?? (this.client === OAUTH_ONLY ? undefined : configs[0]);
    return html`
      <h3 id="clients-title">Use it from an MCP client</h3>
      <label for="client">Your MCP client</label>
      <select id="client" @change=${this.pick}>
        ${configs.map((c) => html`<option value=${c.id} ?selected=${c.id === chosen?.id}>${c.name}</option>`)}
        <option value=${OAUTH_ONLY} ?selected=${!chosen}>ChatGPT or claude.ai</option>
      </select>
      ${chosen ? this.renderClient(chosen) : this.renderOauthOnly()}
      <p role="status" class="hint">${this.copied}</p>
    `;
  }

  private renderClient(c: McpClientConfig): TemplateResult {
    const line = shellLine(this.envVar);
    const copyLine = () => this.copy('Shell line', shellLine(this.envVar, this.apiKey));
    const copyConfig = () =>
      this.copy('Configuration', this.configs(true).find((x) => x.id === c.id)?.text ?? c.text);
    return html`
      ${
        c.keyFrom === 'environment'
          ? html`
            <p>1. Set <code>${this.envVar}</code> in the shell you start ${c.name} from (or in your shell’s profile):</p>
            <pre role="group" aria-label="Shell line for ${c.name}" tabindex="0"><code>${line}</code></pre>
            <p class="hint">Copying puts your key in place of the placeholder.</p>
            <div class="buttons"><button @click=${copyLine}>Copy shell line</button></div>
            <p>2. Add this to <strong>${c.file}</strong>:</p>`
          : html`<p>Add this to <strong>${c.file}</strong>:</p>`
      }
      <pre role="group" aria-label="Configuration for ${c.name}" tabindex="0"><code>${c.text}</code></pre>
      <p class="hint">${c.note}${c.text.includes(KEY_PLACEHOLDER) ? ' Copying puts your key in place of the placeholder.' : ''}</p>
      <div class="buttons">
        <button @click=${copyConfig}>Copy configuration for ${c.name}</button>
      </div>
    `;
  }

  private renderOauthOnly(): TemplateResult {
    return html`
      <p>These can’t use an API key:</p>
      <ul>
        ${OAUTH_ONLY_CLIENTS.map((c) => html`<li><strong>${c.name}</strong>: ${c.why}</li>`)}
      </ul>
    `;
  }

  static override styles = css`
    :host { display: block; }
    h3 { font-size: 1rem; margin: 1rem 0 0.25rem; }
    label { display: block; font-weight: 600; margin-top: 0.5rem; }
    select { font: inherit; padding: 0.3rem; border: 1px solid #8c8c99; border-radius: 6px; margin-bottom: 0.5rem; }
    p { margin: 0.5rem 0 0.25rem; }
    .hint { color: #4a4a55; font-size: 0.85rem; }
    pre { background: #f4f4f7; padding: 0.75rem; border-radius: 6px; overflow-x: auto; font-size: 0.85rem; margin: 0.25rem 0; }
    .buttons { display: flex; justify-content: flex-end; gap: 0.5rem; margin-top: 0.25rem; }
    button { font: inherit; padding: 0.35rem 0.8rem; border-radius: 6px; border: 1px solid #8c8c99;
      background: #fff; color: #1b1b1f; cursor: pointer; }
    :focus-visible { outline: 3px solid #1f4fd1; outline-offset: 2px; }
  `;
}

function remembered(): string | undefined {
  try {
    return localStorage.getItem(REMEMBERED) ?? undefined;
  } catch {
    return undefined;
  }
}

if (!customElements.get('svc-mcp-client-config'))
  customElements.define('svc-mcp-client-config', SvcMcpClientConfig);

declare global {
  interface HTMLElementTagNameMap {
    'svc-mcp-client-config': SvcMcpClientConfig;
  }
}
