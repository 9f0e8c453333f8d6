import type { TemplateResult } from 'lit';
import type { KeyMetadata } from '../../client/index.ts';
import { type ConfirmView, confirmDialog } from '../shared/dialogs.ts';
import { isApp } from '../shared/format.ts';

/** The key and the kind of question; the words come from here. */
export type ConfirmKeyView = Omit<ConfirmView, 'kind' | 'title' | 'text' | 'action'> & {
  kind: 'rotate' | 'revoke';
  key: KeyMetadata;
};

const QUESTIONS = {
  rotate: {
    title: (name: string) => `Rotate “${name}”?`,
    text: 'The current key stops working at once. You get a replacement to paste into your MCP client.',
    action: 'Rotate key',
  },
  revoke: {
    title: (name: string) => `Revoke “${name}”?`,
    text: 'Any MCP client using this key stops working at once. This can’t be undone.',
    action: 'Revoke key',
  },
} as const;

/** Revoking a connected app: what it loses, in an app's terms (it has no key to paste anywhere). */
const REVOKE_APP = {
  title: (name: string) => `Revoke access of “${name}”?`,
  text: 'The app is cut off at once: its next MCP call is refused, and it must ask you to connect again. This can’t be undone.',
  action: 'Revoke access',
} as const;

/** Rotate or revoke: asked first, since either stops the key (or the app) working at once. */
export function confirmKeyDialog(view: ConfirmKeyView): TemplateResult {
  const question = view.kind === 'revoke' && isApp(view.key) ? REVOKE_APP : QUESTIONS[view.kind];
  return confirmDialog({
    ...view,
    title: question.title(view.key.name),
    text: question.text,
    action: question.action,
  });
}
