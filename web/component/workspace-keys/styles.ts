import { css } from 'lit';

/** The look of `<svc-mcp-workspace-keys>`: plain, readable, and contrast enough for axe. */
export const styles = css`
  :host { display: block; font: 15px/1.45 system-ui, sans-serif; color: #1d1d22; }
  h2 { font-size: 1.25rem; margin: 0 0 0.5rem; }
  h3 { font-size: 1.05rem; margin: 1.5rem 0 0.5rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: 0.4rem 0.5rem; border-bottom: 1px solid #dcdce3; vertical-align: top; }
  thead th { font-size: 0.85rem; color: #4a4a55; }
  button { font: inherit; padding: 0.3rem 0.8rem; border-radius: 6px; border: 1px solid #8a8a96; background: #fff; color: #1d1d22; cursor: pointer; }
  button.danger { border-color: #a3241a; color: #a3241a; }
  button.primary { background: #1f4fbf; border-color: #1f4fbf; color: #fff; }
  button:focus-visible, select:focus-visible, input:focus-visible { outline: 3px solid #1f4fbf; outline-offset: 2px; }
  .buttons { display: flex; justify-content: flex-end; gap: 0.5rem; margin-top: 1rem; }
  .bar { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; margin-bottom: 0.5rem; }
  .status { display: inline-block; padding: 0 0.5rem; border-radius: 999px; font-size: 0.85rem; }
  .status.active { background: #e3f3e8; color: #0b5a26; }
  .status.removed { background: #fdeee6; color: #8a2a00; }
  .status.revoked, .status.expired { background: #ececf0; color: #3c3c44; }
  .error { color: #a3241a; }
  .hint { color: #4a4a55; font-size: 0.9rem; }
  fieldset { border: 1px solid #dcdce3; border-radius: 6px; margin: 0 0 0.75rem; }
  label { display: block; margin: 0.2rem 0; }
  dialog { border: 1px solid #8a8a96; border-radius: 8px; max-width: 32rem; }
  dialog::backdrop { background: rgb(0 0 0 / 0.35); }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
