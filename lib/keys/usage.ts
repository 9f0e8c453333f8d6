import { type CountedUse, type McpCall, toolOf } from '#lib/usage/model';
import type { VerifyResult } from './verification.ts';

/**
 * What a verification adds to its credential's usage (contract §18), or undefined when it names no
 * stored credential (unknown, a failed verification): those are counted only in metrics.
 */
export function countedUse(
  presented: { asToken: boolean },
  result: VerifyResult,
  call: McpCall | undefined,
): CountedUse | undefined {
  if (result.outcome === 'valid')
    return {
      credential_id: result.key_id,
      kind:
        result.kind === 'api_key' ? 'api_key' : result.identity_provider ? 'enterprise_grant' : 'oauth_grant',
      outcome: 'allowed',
      user_id: result.user_id,
      client_id: result.client_id,
      tool: toolOf(call),
    };
  if (!('key_id' in result)) return undefined;
  return {
    credential_id: result.key_id,
    kind: presented.asToken ? 'oauth_grant' : 'api_key',
    outcome: result.outcome,
  };
}
