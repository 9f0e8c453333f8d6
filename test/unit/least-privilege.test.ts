import { describe, expect, it } from 'vitest';
import { REFERENCE_TOOLS } from '#lib/access/tools';
import {
  callsWithUnknownTool,
  LEAST_PRIVILEGE_DAYS,
  leastPrivilege,
  toolsInWorkspace,
  toolsOfCredential,
  unusedRiskyTools,
} from '#lib/keys/least-privilege';
import { emptyTally, OTHER_TOOL, type Tally } from '#lib/usage/model';

/**
 * Least privilege from usage (contract §19; lib/keys/least-privilege.ts): what a credential may
 * call by its scopes, own list and each workspace's policy, what it called in 30 days, how many
 * calls named no tool we could read, and the write or destructive tools it holds unused.
 */

const READS = ['list_workspaces', 'list_forms', 'read_draft', 'compile_dsl', 'validate_definition'];

const writer = {
  scopes: ['svc.forms.write' as const],
  workspace_ids: ['w1', 'w2', 'w3'],
  workspace_rules: {
    // w2's policy allows only reads (the scopes it leaves), w3's only two tools.
    w2: { scopes: ['svc.forms.read' as const] },
    w3: { tools: ['list_forms', 'replace_draft'] },
  },
};

const tally = (tools: Record<string, number>, more: Partial<Tally> = {}): Tally => ({
  ...emptyTally(),
  tools,
  ...more,
});

describe('what a credential may call', () => {
  it('in one workspace: its scopes as the policy leaves them, its own list and the policy’s tools', () => {
    expect(toolsInWorkspace(REFERENCE_TOOLS, writer, 'w1')).toEqual([
      ...READS,
      'create_form',
      'replace_draft',
    ]);
    expect(toolsInWorkspace(REFERENCE_TOOLS, writer, 'w2')).toEqual(READS);
    expect(toolsInWorkspace(REFERENCE_TOOLS, writer, 'w3')).toEqual(['list_forms', 'replace_draft']);
    expect(
      toolsInWorkspace(REFERENCE_TOOLS, { ...writer, tools: ['read_draft', 'create_form'] }, 'w2'),
    ).toEqual(['read_draft']);
    expect(toolsInWorkspace(REFERENCE_TOOLS, { ...writer, workspace_rules: undefined }, 'w2')).toEqual([
      ...READS,
      'create_form',
      'replace_draft',
    ]);
  });

  it('in at least one workspace, in catalogue order', () => {
    const narrow = {
      scopes: ['svc.forms.write' as const],
      workspace_ids: ['w3', 'w2'],
      workspace_rules: { w2: { tools: ['read_draft'] }, w3: { tools: ['replace_draft', 'list_forms'] } },
    };
    expect(toolsOfCredential(REFERENCE_TOOLS, narrow)).toEqual(['list_forms', 'read_draft', 'replace_draft']);
    expect(toolsOfCredential(REFERENCE_TOOLS, { ...narrow, workspace_ids: [] })).toEqual([]);
  });
});

describe('what it used in 30 days', () => {
  it('the tools it called among those it may call, and its calls whose tool is unknown', () => {
    expect(LEAST_PRIVILEGE_DAYS).toBe(30);
    const used = tally({ list_forms: 4, replace_draft: 0, create_form: 1, delete_all: 9, [OTHER_TOOL]: 2 });
    expect(
      leastPrivilege(REFERENCE_TOOLS, { ...writer, workspace_ids: ['w3'] }, { ...used, unnamed: 3 }),
    ).toEqual({
      tools: ['list_forms', 'replace_draft'],
      tools_used_30d: ['list_forms'],
      calls_tool_unknown_30d: 5,
    });
  });

  it('calls whose tool is unknown: those without a method, and tools/calls without a usable name', () => {
    expect(callsWithUnknownTool(emptyTally())).toBe(0);
    expect(callsWithUnknownTool(tally({ list_forms: 3 }, { unnamed: 2 }))).toBe(2);
    expect(callsWithUnknownTool(tally({ [OTHER_TOOL]: 4 }))).toBe(4);
  });
});

describe('the administrators’ view of unused risky tools', () => {
  it('the write or destructive tools it may call in the workspace and did not call', () => {
    const calls = tally({ create_form: 2, list_forms: 8 });
    expect(unusedRiskyTools(REFERENCE_TOOLS, writer, 'w1', calls)).toEqual(['replace_draft']);
    expect(unusedRiskyTools(REFERENCE_TOOLS, writer, 'w2', calls)).toEqual([]);
    expect(unusedRiskyTools(REFERENCE_TOOLS, writer, 'w1', emptyTally())).toEqual([
      'create_form',
      'replace_draft',
    ]);
    expect(unusedRiskyTools(REFERENCE_TOOLS, writer, 'w1', tally({ create_form: 0 }))).toEqual([
      'create_form',
      'replace_draft',
    ]);
  });
});
