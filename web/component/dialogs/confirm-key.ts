import type { TemplateResult } from 'lit';
import type { KeyMetadata } from '../../client/index.ts';
import { type ConfirmView, confirmDialog } from '../shared/dialogs.ts';

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

/** Rotate or revoke: asked first, since either stops the key working at once. */
export function confirmKeyDialog(view: ConfirmKeyView): TemplateResult {
  const question = QUESTIONS[view.kind];
  return confirmDialog({
    ...view,
    title: question.title(view.key.name),
    text: question.text,
    action: question.action,
  });
}
