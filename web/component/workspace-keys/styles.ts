import { css } from 'lit';
import { chartStyles } from '../shared/charts.ts';
import { keyPageStyles } from '../shared/styles.ts';

/**
 * The look of `<svc-mcp-workspace-keys>`: the key page's own (type, tables, badges, buttons, forms),
 * so that the two elements read as one page, plus what only this element has.
 */
export const styles = [
  keyPageStyles,
  chartStyles,
  css`
    h3 { font-size: 1.05rem; margin: 1.5rem 0 0.5rem; }
    .bar { flex-wrap: wrap; margin-bottom: 0.5rem; justify-content: flex-start; }
    .bar label { font-weight: normal; margin-top: 0; }
    .status.removed { background: #fdeee6; color: #8a2a00; }
    select { font: inherit; padding: 0.35rem; border: 1px solid #8c8c99; border-radius: 6px; background: #fff; color: #1b1b1f; }
    select#oauth-clients { display: block; }
    h4 { font-size: 1rem; margin: 0 0 0.25rem; }
    .warning { border: 2px solid #a3140b; background: #fdecea; color: #5c0c06; border-radius: 6px; padding: 0.75rem 1rem; margin: 0.5rem 0 1rem; }
    .warning p, .warning ul { margin: 0.25rem 0; }
    .usage th .note { font-weight: normal; margin: 0; }
  `,
];
