import { nothing, type TemplateResult } from 'lit';
import type { KeyMetadata } from '../client/index.ts';
import { confirmKeyDialog } from './dialogs/confirm-key.ts';
import { type CreateKey, createKeyDialog } from './dialogs/create-key.ts';
import { type KeyHistory, keyHistoryDialog } from './dialogs/key-history.ts';
import { type KeyUsage, keyUsageDialog } from './dialogs/key-usage.ts';
import { type LowerLimits, lowerLimitsDialog } from './dialogs/lower-limits.ts';
import { type ShownOnce, shownOnceDialog } from './dialogs/shown-once.ts';
import { type DialogError, errorAlert, type Workspace } from './shared/dialogs.ts';
import type { Catalogue } from './shared/tools.ts';

/**
 * The one modal of the key page open at a time. A new panel is one more member here, a template
 * module in `dialogs/`, one `case` in `keyDialog`, and the control that opens it.
 */
export type KeyDialog =
  | CreateKey
  | { kind: 'rotate' | 'revoke'; key: KeyMetadata; error?: DialogError }
  | KeyHistory
  | KeyUsage
  | LowerLimits
  | ShownOnce;

/** What the open dialog shows and what its controls do: the element's state and actions. */
export interface KeyDialogView {
  workspaces: readonly Workspace[] | undefined;
  maxExpiryDays: number;
  defaultExpiryDays: number;
  /** The MCP endpoint in the client configuration shown with a new key. */
  mcpUrl: string;
  /** The MCP server's tools, offered on create. */
  catalogue: Catalogue;
  busy: boolean;
  /** A listed key's hint, to name the keys of a history. */
  hintOf: (keyId: string) => string | undefined;
  /** Replaces the open dialog's state (another choice in a form). */
  set: (dialog: KeyDialog) => void;
  create: (event: SubmitEvent) => void;
  rotate: (key: KeyMetadata) => void;
  revoke: (key: KeyMetadata) => void;
  copy: (dialog: ShownOnce, what: string, text: string) => void;
  loadEvents: (key: KeyMetadata, cursor: string | null) => void;
  loadUsage: (key: KeyMetadata) => void;
  restrict: (dialog: KeyUsage, tools: string[]) => void;
  lowerLimits: (dialog: LowerLimits, event: SubmitEvent) => void;
  close: () => void;
  closed: (event: Event) => void;
}

/** The open dialog's template. */
export function keyDialog(dialog: KeyDialog, view: KeyDialogView): TemplateResult {
  const { close, closed } = view;
  const error = 'error' in dialog ? errorAlert(dialog.error, view.workspaces) : nothing;
  switch (dialog.kind) {
    case 'create':
      return createKeyDialog({
        dialog,
        catalogue: view.catalogue,
        change: view.set,
        workspaces: view.workspaces,
        maxExpiryDays: view.maxExpiryDays,
        defaultExpiryDays: view.defaultExpiryDays,
        busy: view.busy,
        submit: view.create,
        cancel: close,
        closed,
      });
    case 'rotate':
    case 'revoke':
      return confirmKeyDialog({
        kind: dialog.kind,
        key: dialog.key,
        busy: view.busy,
        error,
        confirm: () => (dialog.kind === 'rotate' ? view.rotate(dialog.key) : view.revoke(dialog.key)),
        cancel: close,
        closed,
      });
    case 'secret':
      return shownOnceDialog({
        dialog,
        mcpUrl: view.mcpUrl,
        copy: (what, text) => view.copy(dialog, what, text),
        done: close,
        closed,
      });
    case 'events':
      return keyHistoryDialog({
        dialog,
        hintOf: view.hintOf,
        nameOf: (id) => view.workspaces?.find((w) => w.id === id)?.name,
        error,
        load: (cursor) => view.loadEvents(dialog.key, cursor),
        close,
        closed,
      });
    case 'usage':
      return keyUsageDialog({
        dialog,
        busy: view.busy,
        error,
        retry: () => view.loadUsage(dialog.key),
        restrict: (tools) => view.restrict(dialog, tools),
        close,
        closed,
      });
    case 'limits':
      return lowerLimitsDialog({
        dialog,
        busy: view.busy,
        error,
        submit: (event) => view.lowerLimits(dialog, event),
        cancel: close,
        closed,
      });
  }
}
