import type { WorkspaceEvent } from '../../client/index.ts';
import { limitsSentence } from '../shared/limits.ts';

/** How the governance history names each kind of credential a policy admits. */
const KIND_HISTORY = {
  api_key: 'API keys',
  oauth_grant: 'OAuth apps',
  enterprise_grant: 'apps through the organisation’s sign-in',
} as const;

/** A policy change: who made it and the rules it set (its tools and caps only when it sets some). */
function policyChange(event: Extract<WorkspaceEvent, { type: 'workspace.policy_changed' }>): string {
  const after = event.details.after;
  const access = after.mcp_access === 'enabled' ? 'enabled' : 'disabled';
  const kinds = after.credential_kinds ?? ['api_key', 'oauth_grant', 'enterprise_grant'];
  const reach = kinds.length < 3 ? `; ${kinds.map((k) => KIND_HISTORY[k]).join(' and ')} only` : '';
  const tools = after.allowed_tools ? `; tools ${after.allowed_tools.join(', ') || 'none'}` : '';
  const caps = limitsSentence({ per_minute: after.max_calls_per_minute, per_day: after.max_calls_per_day });
  const calls = caps ? `; ${caps} for each credential` : '';
  return `Policy changed by ${event.actor.id ?? 'an administrator'}: MCP access ${access}${reach}; scopes ${after.allowed_scopes.join(', ') || 'none'}${tools}${calls}.`;
}

/** A line of the governance history: a policy change, or a credential cut off (by whom). */
export function describeWorkspaceEvent(event: WorkspaceEvent): string {
  if (event.type === 'workspace.policy_changed') return policyChange(event);
  const by =
    event.details.reason === 'admin' ? `by ${event.actor.id ?? 'an administrator'}` : 'by the policy';
  return `Key ${event.key_id.slice(0, 8)} of ${event.user_id} cut off ${by}.`;
}
