import type { CredentialKind } from '#lib/access/credential-kinds';
import { LIFECYCLE_SETTINGS } from '#lib/limits';

/**
 * Usage (contract §18): what each credential does, counted where it is verified and kept in hourly
 * buckets. Pure types and rules; the recorder (recorder.ts) counts, the store writes and reads.
 */

export type { CredentialKind } from '#lib/access/credential-kinds';

/**
 * A credential's counts are written at most this often per function instance (plus, as often, at
 * once for a refusal `writtenAtOnce`).
 */
export const USAGE_WRITE_INTERVAL_MS = 60_000;

/** Default for `usageRetentionDays`: how long the buckets are kept (DynamoDB TTL). */
export const DEFAULT_USAGE_RETENTION_DAYS = LIFECYCLE_SETTINGS.usageRetentionDays.default;

/**
 * The refusals counted against a credential: the verification's own that name one (contract §7),
 * a tool it may not call and a call over its limits (contract §19). A tool's scope refusal
 * (`insufficient_scope`) comes after the verification, in the MCP server, and is not counted.
 */
export const REFUSAL_REASONS = [
  'revoked',
  'expired',
  'no_access',
  'wrong_resource',
  'tool_not_allowed',
  'rate_limited',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** One verification's outcome: allowed, or the reason it was refused. */
export type UsageOutcome = 'allowed' | RefusalReason;

/**
 * Whether an outcome's counts are written at once rather than with the next due write: a revoked
 * or expired credential still presented (a leaked key, a forgotten script) is what the
 * administrators' view calls out, and may never be presented again to carry its count.
 */
export const writtenAtOnce = (outcome: UsageOutcome): boolean =>
  outcome === 'revoked' || outcome === 'expired';

/** Tool names kept per bucket; any further name counts under OTHER_TOOL. */
export const MAX_TOOLS_PER_BUCKET = 50;
export const OTHER_TOOL = '(other)';
const TOOL_NAME = /^[A-Za-z0-9_./-]{1,64}$/;

/**
 * An hour's (or a day's) counts: every verification of the credential (`calls`, allowed or not),
 * the refused ones by reason, the allowed `tools/call`s by tool name, and the calls of tools it
 * may not call (`tool_not_allowed`) by tool name.
 */
export interface Tally {
  calls: number;
  refused: Partial<Record<RefusalReason, number>>;
  tools: Record<string, number>;
  refused_tools?: Record<string, number>;
  /** Allowed calls whose method was not known (an older client sends no `Mcp-Method`): their tool is unknown. */
  unnamed?: number;
}

/** What one verification of a known credential adds to its usage. */
export interface CountedUse {
  credential_id: string;
  kind: CredentialKind;
  outcome: UsageOutcome;
  /** The credential's creator, when the verification learned it. */
  user_id?: string | undefined;
  /** For a grant: its OAuth client, when the verification learned it. */
  client_id?: string | undefined;
  /** The MCP tool an allowed `tools/call` named, or one refused as `tool_not_allowed`. */
  tool?: string | undefined;
  /** An allowed call whose method was not known: it may have been a `tools/call` of any tool. */
  unnamed?: boolean | undefined;
}

/** The MCP request a verification is for, where the caller knows it (headers or JSON-RPC body). */
export interface McpCall {
  /** The JSON-RPC method (`Mcp-Method`), e.g. `tools/call`. */
  method?: string | undefined;
  /** For `tools/call`: the tool's name (`Mcp-Name`). */
  name?: string | undefined;
}

/**
 * One instance's counts of one credential for one UTC day, hour by hour: the unit written. Each
 * instance writes its own item (`instance`), whole, so a write never needs the stored one.
 */
export interface UsageDay {
  credential_id: string;
  kind: CredentialKind;
  user_id?: string;
  client_id?: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /**
   * The writing function instance's id; `<id>.<n>` for a day the instance counted again after
   * forgetting days (past its capacity, or a day that ended): an item of its own, so a put never
   * replaces counts written before.
   */
  instance: string;
  /** The day's counts by UTC hour (`00`–`23`); hours without calls are absent. */
  hours: Record<string, Tally>;
  /** The day's calls, all hours together (what a list's `calls_7d` sums). */
  calls: number;
}

export const emptyTally = (): Tally => ({ calls: 0, refused: {}, tools: {} });

/** The tool an MCP call counts under: its name when it looks like one, else OTHER_TOOL. */
export function toolOf(call: McpCall | undefined): string | undefined {
  if (call?.method !== 'tools/call') return undefined;
  return call.name !== undefined && TOOL_NAME.test(call.name) ? call.name : OTHER_TOOL;
}

/** Adds one call of `tool` to a count by tool name, past MAX_TOOLS_PER_BUCKET names under OTHER_TOOL. */
function addTool(counts: Record<string, number>, name: string): void {
  const known = name in counts || Object.keys(counts).length < MAX_TOOLS_PER_BUCKET;
  const tool = known ? name : OTHER_TOOL;
  counts[tool] = (counts[tool] ?? 0) + 1;
}

/** Adds one verification to a tally. */
export function addUse(tally: Tally, use: Pick<CountedUse, 'outcome' | 'tool' | 'unnamed'>): void {
  tally.calls += 1;
  if (use.outcome !== 'allowed') {
    tally.refused[use.outcome] = (tally.refused[use.outcome] ?? 0) + 1;
    if (use.outcome === 'tool_not_allowed' && use.tool !== undefined) {
      tally.refused_tools ??= {};
      addTool(tally.refused_tools, use.tool);
    }
    return;
  }
  if (use.tool !== undefined) addTool(tally.tools, use.tool);
  else if (use.unnamed) tally.unnamed = (tally.unnamed ?? 0) + 1;
}

/** Adds `from` into `into`. */
export function mergeTally(into: Tally, from: Tally): Tally {
  into.calls += from.calls;
  for (const [reason, n] of Object.entries(from.refused) as [RefusalReason, number][])
    into.refused[reason] = (into.refused[reason] ?? 0) + n;
  for (const [tool, n] of Object.entries(from.tools)) into.tools[tool] = (into.tools[tool] ?? 0) + n;
  if (from.unnamed) into.unnamed = (into.unnamed ?? 0) + from.unnamed;
  for (const [tool, n] of Object.entries(from.refused_tools ?? {})) {
    into.refused_tools ??= {};
    into.refused_tools[tool] = (into.refused_tools[tool] ?? 0) + n;
  }
  return into;
}

/** The UTC day (`YYYY-MM-DD`) and hour (`HH`) of an instant. */
export function dayAndHour(at: Date): { day: string; hour: string } {
  const iso = at.toISOString();
  return { day: iso.slice(0, 10), hour: iso.slice(11, 13) };
}
