import { html, nothing, type TemplateResult } from 'lit';
import type { KeyMetadata } from '../../client/index.ts';
import '../client-config.ts';

/** The environment variable the ready-made client configuration reads the key from. */
export const ENV_VAR = 'SVC_MCP_API_KEY';

/** The new key, shown once after create or rotate. The secret lives only in this dialog's state. */
export interface ShownOnce {
  kind: 'secret';
  apiKey: string;
  key: KeyMetadata;
  rotated: boolean;
  /** What the last copy did, for the status line. */
  copied?: string;
}

/** The dialog for a key just created or rotated. */
export const shownOnce = (made: { api_key: string; metadata: KeyMetadata }, rotated: boolean): ShownOnce => ({
  kind: 'secret',
  apiKey: made.api_key,
  key: made.metadata,
  rotated,
});

export interface ShownOnceView {
  dialog: ShownOnce;
  /** The MCP endpoint the client configuration names. */
  mcpUrl: string;
  /** Copies `text` and says so; `what` is "Key". */
  copy: (what: string, text: string) => void;
  done: () => void;
  closed: (event: Event) => void;
}

export function shownOnceDialog(view: ShownOnceView): TemplateResult {
  const { dialog } = view;
  return html`
    <dialog data-kind="secret" aria-labelledby="secret-title" aria-describedby="secret-once" @close=${view.closed}>
      <h2 id="secret-title">${dialog.rotated ? 'Copy your replacement key' : 'Copy your new key'}</h2>
      <p id="secret-once" class="once">This is the only time the key is shown. Copy it now into a password manager or an environment variable: it can’t be shown again.</p>
      ${dialog.rotated ? html`<p>The previous key no longer works. Update <code>${ENV_VAR}</code> wherever you used it and restart the client.</p>` : nothing}
      <label for="secret">MCP API key “${dialog.key.name}”</label>
      <div class="secret-row">
        <input id="secret" readonly .value=${dialog.apiKey} autocomplete="off" spellcheck="false" @focus=${(e: Event) => (e.target as HTMLInputElement).select()} />
        <button class="primary" autofocus @click=${() => view.copy('Key', dialog.apiKey)}>Copy key</button>
      </div>
      <p role="status" class="hint">${dialog.copied ?? ''}</p>
      <svc-mcp-client-config .url=${view.mcpUrl} .envVar=${ENV_VAR} .apiKey=${dialog.apiKey}></svc-mcp-client-config>
      <div class="buttons">
        <button class="primary" @click=${view.done}>Done</button>
      </div>
    </dialog>
  `;
}

/**
 * Copies to the clipboard, falling back to selecting the shown field (`fallbackField`) and the
 * browser's copy command; returns the sentence for the dialog's status line.
 */
export async function copyWithNote(
  what: string,
  text: string,
  fallbackField: HTMLInputElement | null,
): Promise<string> {
  try {
    await navigator.clipboard.writeText(text);
    return `${what} copied.`;
  } catch {
    if (fallbackField?.value === text) {
      fallbackField.select();
      if (document.execCommand('copy')) return `${what} copied.`;
    }
    return `Couldn’t copy; select the ${what.toLowerCase()} and copy it.`;
  }
}
