import { describe, expect, it } from 'vitest';
import {
  ENDPOINTS_END,
  ENDPOINTS_START,
  renderEndpointTable,
  withEndpointTable,
} from '#lib/api-docs/endpoint-table';

/** docs/api.md's endpoint table, written between its markers by `npm run openapi` (lib/api-docs/endpoint-table.ts). */
describe('the endpoint table written into a page', () => {
  it('replaces what is between the markers, the markers at the very start included', () => {
    const page = `${ENDPOINTS_START}\nold table\n${ENDPOINTS_END}\nafter`;
    expect(withEndpointTable(page)).toBe(
      `${ENDPOINTS_START}\n\n${renderEndpointTable()}\n\n${ENDPOINTS_END}\nafter`,
    );
  });

  it('refuses a page without both markers, or with them in the wrong order', () => {
    const refusal = 'docs/api.md has no endpoint table markers';
    expect(() => withEndpointTable('no markers')).toThrow(refusal);
    expect(() => withEndpointTable(`${ENDPOINTS_START} only`)).toThrow(refusal);
    expect(() => withEndpointTable(`x ${ENDPOINTS_END} then ${ENDPOINTS_START}`)).toThrow(refusal);
  });
});
