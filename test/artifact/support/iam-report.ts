import type { Deployment } from './deployment.ts';
import type { TemplateFunction } from './functions.ts';
import { type IamRequest, iamRequests, simulate } from './iam.ts';

// biome-ignore lint/suspicious/noExplicitAny: policy documents are JSON
type Json = any;

/**
 * Grants no call of the suite exercises, and why each stays. The key is the action and the kind
 * of resource (`logs:PutLogEvents log-group`), for every function, or the same preceded by the
 * function's construct id (`CreateKeyFunction dynamodb:GetItem table`) for one. A grant not
 * listed here and not exercised fails the suite: remove it, or exercise it, or give its reason
 * here and in docs/iam.md.
 */
export const UNEXERCISED_REASONS: Record<string, string> = {
  'CreateKeyFunction dynamodb:GetItem table':
    "Only when the user's active-key cap is full: the create transaction then returns the user's slot item (ReturnValuesOnConditionCheckFailure ALL_OLD) to release lapsed slots, a read DynamoDB authorizes as GetItem. The suite's user stays under the cap.",
  'ReportLeakedKeysFunction dynamodb:GetItem table':
    'Only when a reported key changed between its read and its revocation: the revoke transaction then returns the key (ReturnValuesOnConditionCheckFailure ALL_OLD), a read DynamoDB authorizes as GetItem.',
  'GithubSecretScanningFunction dynamodb:GetItem table':
    'Only when a reported key changed between its read and its revocation: the revoke transaction then returns the key (ReturnValuesOnConditionCheckFailure ALL_OLD), a read DynamoDB authorizes as GetItem.',
  'McpAuthorizerFunction dynamodb:PutItem table':
    "The usage counts (contract §18) are written a minute after an environment's first verification of a credential, and the suite's environments live less; test/infra/grant-verify.test.ts proves the statement admits a usage item and refuses a key's.",
  'OauthFunction dynamodb:Query table':
    "An ID-JAG's exchange reads every membership of the person (contract §17). The suite's deployment trusts its jwtIssuer, whose keys are fetched from a public https address only, so no ID-JAG verifies here; test/integration/enterprise-grant.test.ts exchanges them on DynamoDB Local.",
  'OauthFunction dynamodb:Query index':
    "An ID-JAG's exchange looks for the person's live enterprise grant, and an identity signal for the person's active credentials, on the by-user index (contract §17); neither verifies without the IdP's keys, which the suite cannot serve (test/integration/enterprise-grant.test.ts, test/integration/identity-signals.test.ts).",
  'OauthFunction dynamodb:DeleteItem table':
    "An enterprise grant's renewal deletes the index entries of workspaces it no longer reaches (contract §17); no ID-JAG verifies in the suite (test/integration/enterprise-grant.test.ts).",
  'logs:CreateLogStream log-group':
    "Lambda writes the function's logs with its role (the function's code makes no Logs call).",
  'logs:PutLogEvents log-group':
    "Lambda writes the function's logs with its role (the function's code makes no Logs call).",
  'dynamodb:ListStreams stream':
    "Part of the stream read grant of Lambda's event source mapping; the mapping is given the stream's ARN and reads it without listing streams.",
  'sqs:SendMessage queue':
    "Lambda's event source mapping sends a stream batch it gave up on to the dead-letter queue.",
  'sqs:GetQueueAttributes queue':
    "Lambda's event source mapping checks the dead-letter queue it sends failed batches to.",
  'sqs:GetQueueUrl queue':
    "Lambda's event source mapping looks up the dead-letter queue it sends failed batches to.",
};

/** `logs:PutLogEvents` on a log group's ARN → `logs:PutLogEvents log-group`. */
export function grantKind(action: string, resource: string): string {
  const kind = /^arn:aws:logs:.*:log-group:/.test(resource)
    ? 'log-group'
    : /^arn:aws:sqs:/.test(resource)
      ? 'queue'
      : /\/stream\//.test(resource)
        ? 'stream'
        : /\/index\//.test(resource)
          ? 'index'
          : /^arn:aws:dynamodb:/.test(resource)
            ? 'table'
            : resource === '*'
              ? '*'
              : (resource.split(':')[2] ?? resource);
  return `${action} ${kind}`;
}

interface Grant {
  fn: TemplateFunction;
  policy: number;
  statement: number;
  action: string;
  resource: string;
}

export interface IamReport {
  calls: number;
  denied: string[];
  unexplained: string[];
  /** Each exercised grant and how many recorded requests a role without it denies. */
  necessary: { grant: string; deniedWithout: number }[];
  text: string;
}

const list = (x: Json): string[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);
const actionPattern = (a: string) =>
  new RegExp(
    `^${a
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  );

function grantsOf(fn: TemplateFunction): Grant[] {
  const out: Grant[] = [];
  fn.policies.forEach((p, policy) => {
    list(p.document.Statement).forEach((s: Json, statement) => {
      if (s.Effect !== 'Allow') return;
      for (const action of list(s.Action))
        for (const resource of list(s.Resource)) out.push({ fn, policy, statement, action, resource });
    });
  });
  return out;
}

/** The role's policies with one (action, resource) pair taken out of one statement. */
function without(fn: TemplateFunction, g: Grant) {
  return fn.policies.map((p, pi) => {
    if (pi !== g.policy) return p;
    const statements = list(p.document.Statement).flatMap((s: Json, si) => {
      if (si !== g.statement) return [s];
      const others = list(s.Action).filter((a) => a !== g.action);
      const rest = list(s.Resource).filter((r) => r !== g.resource);
      return [
        ...(others.length > 0 ? [{ ...s, Action: others }] : []),
        ...(rest.length > 0 ? [{ ...s, Action: [g.action], Resource: rest }] : []),
      ];
    });
    return { ...p, document: { ...p.document, Statement: statements } };
  });
}

const describeGrant = (g: Grant) => `${g.fn.logicalId}: ${g.action} on ${g.resource}`;

/** Simulates every recorded call against its function's role; then weighs each grant. */
export async function exerciseIam(d: Deployment): Promise<IamReport> {
  const byKey = new Map([...d.environments.values()].map((e) => [e.accessKeyId, e.fn]));
  const partitionKey = (table: string) => d.tables.get(table)?.partitionKey;
  const requests = new Map<TemplateFunction, IamRequest[]>();
  const denied: string[] = [];
  const seen = new Set<string>();
  for (const call of d.calls) {
    const fn = byKey.get(call.accessKeyId);
    if (!fn) {
      denied.push(`a call signed by ${call.accessKeyId} (no function of the templates): ${call.operation}`);
      continue;
    }
    for (const request of iamRequests(call, partitionKey)) {
      const id = `${fn.logicalId} ${JSON.stringify(request)}`;
      if (seen.has(id)) continue;
      seen.add(id);
      requests.set(fn, [...(requests.get(fn) ?? []), request]);
    }
  }
  const keyPolicy = (r: IamRequest) =>
    r.action.startsWith('kms:') ? d.keyPolicies.get(r.resource) : undefined;
  for (const [fn, rs] of requests) {
    for (const r of rs) {
      const verdict = await simulate(fn.roleArn, fn.policies, r, keyPolicy(r));
      if (!verdict.allowed) {
        denied.push(
          `${fn.logicalId}: ${r.action} on ${r.resource} (${r.via}) ${JSON.stringify(r.context)}: ${verdict.detail}`,
        );
      }
    }
  }

  const lines: string[] = [];
  const unexplained: string[] = [];
  const necessary: IamReport['necessary'] = [];
  for (const fn of d.functions) {
    const rs = requests.get(fn) ?? [];
    for (const g of grantsOf(fn)) {
      const candidates = rs.filter((r) => actionPattern(g.action).test(r.action));
      const single = [
        {
          name: 'grant',
          document: {
            Version: '2012-10-17',
            Statement: [{ ...statementOf(fn, g), Action: g.action, Resource: g.resource }],
          },
        },
      ];
      let uses = 0;
      for (const r of candidates) if ((await simulate(fn.roleArn, single, r, keyPolicy(r))).allowed) uses++;
      if (uses > 0) {
        const policies = without(fn, g);
        let deniedWithout = 0;
        for (const r of rs)
          if (!(await simulate(fn.roleArn, policies, r, keyPolicy(r))).allowed) deniedWithout++;
        necessary.push({ grant: describeGrant(g), deniedWithout });
        lines.push(
          `  used    ${describeGrant(g)} (${uses} request kinds; ${deniedWithout} denied without it)`,
        );
      } else {
        const kind = grantKind(g.action, g.resource);
        const construct = g.fn.logicalId.replace(/[0-9A-F]{8}$/, '');
        const reason = UNEXERCISED_REASONS[`${construct} ${kind}`] ?? UNEXERCISED_REASONS[kind];
        if (!reason) unexplained.push(describeGrant(g));
        lines.push(
          `  unused  ${describeGrant(g)}: ${reason ?? 'NO REASON: remove the grant or give its reason'}`,
        );
      }
    }
  }
  const calls = d.calls.length;
  const text = [
    `IAM: ${calls} AWS calls recorded, ${[...requests.values()].flat().length} distinct authorizations, ${denied.length} denied`,
    ...denied.map((x) => `  DENIED  ${x}`),
    ...lines,
  ].join('\n');
  return { calls, denied, unexplained, necessary, text };
}

const statementOf = (fn: TemplateFunction, g: Grant) =>
  list(fn.policies[g.policy]?.document.Statement)[g.statement] as Json;
