import { describe, expect, it } from 'vitest';
import { model, verificationReads } from '../../bench/capacity.ts';

const mix = {
  rps: 100,
  workspaces: 1,
  memberships: 20,
  keys: 1000,
  authorizerMb: 256,
  mcpMb: 256,
  dynamoMs: 4,
};

describe('the capacity model', () => {
  it('reads as the verifier does: by key for few workspaces, a Query where it costs fewer units', () => {
    expect(verificationReads(1, 1)).toMatchObject({ calls: 1, rru: 2 });
    expect(verificationReads(10, 100)).toMatchObject({ calls: 2, rru: 3 });
    expect(verificationReads(50, 100)).toMatchObject({ calls: 2, rru: 4 });
    // Many memberships: never more than the key and one unit per workspace.
    expect(verificationReads(3, 5000).rru).toBe(4);
  });

  it('adds up its lines, and a hot user is limited by their memberships partition', () => {
    const m = model({ ...mix, workspaces: 50, memberships: 100 });
    const [rest = 0, http = 0, authorizer = 0, mcp = 0, reads = 0, writes = 0, usage = 0] = Object.values(
      m.lines,
    );
    const shared = authorizer + mcp + reads + writes + usage;
    // Usage (contract §18) is written as often as the last use: its day (1 unit) and the key's count (2).
    expect(usage).toBeCloseTo(writes * 1.5);
    expect(m.totals['behind an HTTP API']).toBeCloseTo(http + shared);
    expect(m.totals['behind a REST API (the reference endpoint)']).toBeCloseTo(rest + shared);
    expect(reads).toBeCloseTo(4 * 0.125);
    expect(m.limits.hotKeyVerificationsPerSecond).toBe(3000);
    expect(m.limits.hotUserVerificationsPerSecond).toBe(1000);
  });
});
