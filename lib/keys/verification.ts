import type { Scope, WorkspaceAccess } from '#lib/access/scopes';
import type { ToolCatalogue } from '#lib/access/tools';
import type { UsageRecorder } from '#lib/usage/recorder';
import type { RateWriter } from './limiter.ts';
import type { RateDenial } from './limits.ts';
import type { PepperSource } from './pepper.ts';
import type { KeyReader, MembershipReader, VerificationReads } from './port.ts';

/**
 * A credential that was accepted, with what it may do: enough for an MCP SDK `AuthInfo` (the
 * token, `scopes`, `expiresAt` from `expires_at`; `user_id`, `key_id`, `kind` and `workspaces` as
 * its extras).
 */
export interface ValidResult {
  /** Accepted: the only outcome that lets a request through. */
  outcome: 'valid';
  /** What kind of credential: an MCP API key (`svc_mcp_v1_…`) or an OAuth access token (`svc_mcp_at_v1_…`). */
  kind: 'api_key' | 'oauth';
  /** The key's (or grant's) creator, on whose behalf it acts. */
  user_id: string;
  /** The key's id, or the grant's for an access token. */
  key_id: string;
  /** For an access token: the OAuth client the grant was given to. */
  client_id?: string;
  /** For an access token: the MCP server (RFC 8707 resource) it was issued for. */
  resource?: string;
  /** For an access token of an enterprise grant: the identity provider (its issuer) that decided it. */
  identity_provider?: string;
  /** When the credential expires (ISO 8601): the key's, or the access token's (at most an hour). */
  expires_at: string;
  /** The effective scopes across `workspaces`. */
  scopes: Scope[];
  /**
   * The workspaces the key reaches now, each with the creator's role, the effective scopes and,
   * when the verifier knows them, the tools it may call there.
   */
  workspaces: WorkspaceAccess[];
  /** The tools it may call in at least one workspace (contract §19), when the verifier knows them. */
  tools?: string[];
  /** The tools its owner limited it to, when it has a list of its own (a refusal's sentence tells the owner's from a policy's). */
  own_tools?: string[];
}

/**
 * A `tools/call` of a tool the credential may call in none of its workspaces (contract §19):
 * `by: credential` when its own list (or its scopes) leaves the tool out, `policy` when the
 * policies of `workspace_ids` do; `tools` are what it may call.
 */
export interface ToolRefusal {
  outcome: 'tool_not_allowed';
  key_id: string;
  kind: 'api_key' | 'oauth';
  tool: string;
  by: 'credential' | 'policy';
  tools: string[];
  workspace_ids: string[];
}

/**
 * Expected outcomes of a verification are data, never exceptions. `unavailable`: the verification
 * itself failed (DynamoDB or KMS), so the key is not at fault; `createMcpKeyVerifier` answers it,
 * `createKeyVerifier` throws instead.
 */
export type VerifyResult =
  | ValidResult
  | { outcome: 'malformed' }
  | { outcome: 'not_found' }
  | { outcome: 'revoked'; key_id: string }
  | { outcome: 'expired'; key_id: string; expires_at: string }
  | { outcome: 'no_access'; key_id: string }
  /** An OAuth refresh token sent as a bearer credential (contract §15): never accepted. */
  | { outcome: 'refresh_token' }
  /** An access token issued for another MCP server than the verifier's `resource`. */
  | { outcome: 'wrong_resource'; key_id: string }
  | ToolRefusal
  | RateRefusal
  | { outcome: 'unavailable' };

/** A call over one of the credential's limits (contract §19): which, who set it, and when it can call again. */
export interface RateRefusal extends RateDenial {
  outcome: 'rate_limited';
  key_id: string;
}

/**
 * One write of a key's `last_used_at` (at most one a minute per key): `recorded`, `already_recorded`
 * when another verification recorded a use within the minute, or `failed` (a failed write never
 * denies a valid key).
 */
export type KeyUse =
  | { key_id: string; at: string; outcome: 'recorded' | 'already_recorded' }
  | { key_id: string; at: string; outcome: 'failed'; error: unknown };

/**
 * What `createKeyVerifier` needs, each injected: the key and membership reads (a store's, or
 * yours), the pepper source and the clock. `createMcpKeyVerifier` builds them from its options.
 */
export interface VerifierDeps {
  /** Reads a key by id and records its uses. */
  keys: KeyReader;
  /** Reads the creator's current roles. */
  memberships: MembershipReader;
  /**
   * Reads shaped for verification. With them, the verifier keeps the immutable parts of each key
   * it verified and verifies that key again in one round trip; without, every verification reads
   * the key first and the memberships after.
   */
  reads?: VerificationReads;
  /** Verified keys kept in memory; the least recently used is forgotten first. @default 5000 */
  cacheSize?: number;
  /**
   * The MCP server (its canonical URL, RFC 8707) this verifier guards: an access token issued for
   * another one is refused (`wrong_resource`). Without it, access tokens for any of the
   * deployment's MCP servers are accepted, as keys are. @default none
   */
  resource?: string | undefined;
  /**
   * The tools of the MCP server this verifier guards and the scope each needs (contract §19): a
   * `tools/call` of a tool the credential may call in none of its workspaces is refused
   * (`tool_not_allowed`), and a valid result lists what it may call. Without it, only the names a
   * credential's own list and its workspaces' policies allow are checked. @default none
   */
  tools?: ToolCatalogue | undefined;
  /**
   * Adds a limited credential's counted calls to its stored counters (contract §19), at most once a
   * second per credential. Without it, limits are not enforced. @default none
   */
  rates?: RateWriter | undefined;
  /** The pepper of each version the keys were digested with. */
  peppers: PepperSource;
  /** The clock expiry and last use are judged by. */
  now: () => Date;
  /** Called when recording last use fails; a failed bookkeeping write never denies a valid key. */
  onUseRecordError?: (err: unknown) => void;
  /** Told of every last-use write once it settled; what it throws is ignored. */
  onUse?: (use: KeyUse) => void;
  /**
   * Counts each verification of a known credential (contract §18) and writes the counts at most
   * once a minute per credential, alongside a verification's read. @default none: nothing counted
   */
  usageRecorder?: UsageRecorder | undefined;
}

export const DEFAULT_VERIFIER_CACHE_SIZE = 5000;
