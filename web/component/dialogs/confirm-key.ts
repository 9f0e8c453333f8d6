import type { nothing, TemplateResult } from 'lit';
import type { KeyMetadata } from '../../client/index.ts';
import { confirmDialog } from '../shared/dialogs.ts';

export interface ConfirmKeyView {
  kind: 'rotate' | 'revoke';
  key: KeyMetadata;
  busy: boolean;
  error: TemplateResult | typeof nothing;
  confirm: () => void;
  cancel: () => void;
  closed: (event: Event) => void;
}

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
