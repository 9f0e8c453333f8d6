import { css } from 'lit';

/**
 * The look of the key pages: type, tables, status badges, buttons, forms, modal dialogs and
 * alerts. An element adopts it as `static styles = keyPageStyles`.
 */
export const keyPageStyles = css`
  :host { display: block; font: 15px/1.45 system-ui, sans-serif; color: #1b1b1f; }
  .bar { display: flex; align-items: center; justify-content: space-between; gap: 1rem; }
  h2 { font-size: 1.3rem; margin: 0.5rem 0; }
  h3 { font-size: 1rem; margin: 1rem 0 0.25rem; }
  .intro, .hint, .note { color: #4a4a55; }
  .hint, .note { font-size: 0.85rem; margin: 0.15rem 0 0.6rem; }
  .indent { margin-left: 1.6rem; }
  .scroll { overflow-x: auto; }
  table { border-collapse: collapse; width: 100%; margin: 0.75rem 0; }
  th, td { text-align: left; vertical-align: top; padding: 0.5rem; border-bottom: 1px solid #d5d5dc; }
  thead th { font-size: 0.85rem; color: #4a4a55; }
  .plain { list-style: none; margin: 0; padding: 0; }
  .status { display: inline-block; padding: 0 0.5rem; border-radius: 999px; font-size: 0.85rem; }
  .status.active { background: #e3f3e8; color: #0b5a26; }
  .status.revoked, .status.expired, .status.rotated { background: #ececf0; color: #3c3c44; }
  .status.no-access, .warn { color: #8a2a00; }
  .status.no-access { background: #fdeee6; }
  .actions, td code, td.limits button { white-space: nowrap; }
  td.limits { min-width: 9rem; }
  td code.wrap { white-space: normal; overflow-wrap: anywhere; }
  tr[tabindex]:focus-visible { outline-offset: -3px; }
  button { font: inherit; padding: 0.35rem 0.8rem; border-radius: 6px; border: 1px solid #8c8c99;
    background: #fff; color: #1b1b1f; cursor: pointer; }
  button.primary { background: #1f4fd1; border-color: #1f4fd1; color: #fff; }
  button.danger { color: #a3140b; border-color: #a3140b; }
  button:disabled { opacity: 0.6; cursor: default; }
  :focus-visible { outline: 3px solid #1f4fd1; outline-offset: 2px; }
  dialog { max-width: min(40rem, calc(100vw - 2rem)); border: 1px solid #8c8c99; border-radius: 10px; padding: 1.25rem; color: #1b1b1f; }
  dialog::backdrop { background: rgb(0 0 0 / 0.45); }
  label { display: block; font-weight: 600; margin-top: 0.75rem; }
  label.check, label.filter { font-weight: normal; margin-top: 0.35rem; }
  fieldset { margin: 0.75rem 0 0; border: 1px solid #d5d5dc; border-radius: 6px; }
  legend { font-weight: 600; }
  input:not([type="checkbox"]):not([type="radio"]), textarea { font: inherit; padding: 0.35rem; width: 100%; box-sizing: border-box;
    border: 1px solid #8c8c99; border-radius: 6px; }
  [aria-invalid="true"] { border-color: #a3140b; }
  .field-error { color: #a3140b; font-size: 0.85rem; margin: 0.1rem 0 0.5rem; }
  .secret-row { display: flex; gap: 0.5rem; }
  .secret-row button { flex: none; white-space: nowrap; }
  #secret { font-family: ui-monospace, monospace; font-size: 0.85rem; }
  .once { font-weight: 600; }
  pre { background: #f4f4f7; padding: 0.75rem; border-radius: 6px; overflow-x: auto; font-size: 0.85rem; }
  .buttons { display: flex; justify-content: flex-end; gap: 0.5rem; margin-top: 1rem; }
  .error { background: #fdecea; color: #7a1008; border-radius: 6px; padding: 0.5rem 0.75rem; margin-top: 0.75rem; }
  .error p, .error ul { margin: 0.2rem 0; }
  .notice { background: #e3f3e8; color: #0b5a26; border-radius: 6px; padding: 0.5rem 0.75rem; margin: 0.75rem 0 0; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
