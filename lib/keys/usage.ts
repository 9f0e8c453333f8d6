import { type CountedUse, type McpCall, toolOf } from '#lib/usage/model';
import type { Verified } from './verifier-state.ts';

/**
 * What a verification adds to its credential's usage (contract §18), under the kind of credential
 * the verification read (an enterprise grant's refusals too), or undefined when it names no stored
 * credential (unknown, a failed verification): those are counted only in metrics.
 */
export function countedUse(
  { result, kind, userId }: Verified,
  call: McpCall | undefined,
): CountedUse | undefined {
  if (kind === undefined || !('key_id' in result)) return undefined;
  if (result.outcome === 'valid')
    return {
      credential_id: result.key_id,
      kind,
      outcome: 'allowed',
      user_id: result.user_id,
      client_id: result.client_id,
      tool: toolOf(call),
      ...(call?.method === undefined && { unnamed: true }),
    };
  return {
    credential_id: result.key_id,
    kind,
    outcome: result.outcome,
    user_id: userId,
    ...(result.outcome === 'tool_not_allowed' && { tool: toolOf(call) }),
  };
}
