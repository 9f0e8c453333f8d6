import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { WireCall } from './aws-stand-ins.ts';
import { ACCOUNT, REGION } from './cloudformation.ts';

// biome-ignore lint/suspicious/noExplicitAny: request bodies and policy documents are JSON
type Json = any;

/** One authorization AWS makes for a call: a call can need several (a transaction, a batch). */
export interface IamRequest {
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
  /** What made it, e.g. `TransactWriteItems item 2 (Update)`. */
  via: string;
}

/** A table's partition key name, to give `dynamodb:LeadingKeys` its value. */
export type PartitionKeyOf = (table: string) => string | undefined;

const tableArn = (name: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`;

// DynamoDB Local names streams `arn:aws:dynamodb:ddblocal:000000000000:table/<name>/stream/<label>`.
const streamArn = (local: string | undefined) => {
  const m = /table\/([^/]+)\/stream\/(.+)$/.exec(local ?? '');
  return m ? `${tableArn(m[1] as string)}/stream/${m[2]}` : '*';
};

const WORDS = new Set(['SET', 'REMOVE', 'ADD', 'DELETE', 'AND', 'OR', 'NOT', 'BETWEEN', 'IN']);
const FUNCTIONS =
  /\b(attribute_exists|attribute_not_exists|attribute_type|begins_with|contains|size|if_not_exists|list_append)\s*\(/g;

/** Top-level attribute names an expression reads or writes (`#names` resolved). */
function expressionAttributes(expression: string | undefined, names: Record<string, string> = {}): string[] {
  if (!expression) return [];
  const text = expression.replace(FUNCTIONS, '(').replace(/:[A-Za-z0-9_]+/g, ' ');
  const out: string[] = [];
  for (const m of text.matchAll(/#?[A-Za-z_][A-Za-z0-9_]*/g)) {
    const token = m[0];
    if (WORDS.has(token.toUpperCase()) && !token.startsWith('#')) continue;
    // Only the first element of a path is top-level: skip what follows a '.'.
    if (text[(m.index ?? 0) - 1] === '.') continue;
    out.push(token.startsWith('#') ? (names[token] ?? token) : token);
  }
  return out;
}

/** The value an equality on the partition key gives in a key condition, as a string. */
function keyConditionValue(input: Json, key: string): string | undefined {
  const names: Record<string, string> = input.ExpressionAttributeNames ?? {};
  for (const part of String(input.KeyConditionExpression ?? '').split(/\s+AND\s+/i)) {
    const m = /^\s*\(?\s*(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)/.exec(part);
    if (m && (names[m[1] as string] ?? m[1]) === key)
      return scalar(input.ExpressionAttributeValues?.[m[2] as string]);
  }
  return undefined;
}

const scalar = (value: Json): string | undefined =>
  value === undefined ? undefined : String(value.S ?? value.N ?? value.B ?? JSON.stringify(value));

/** One DynamoDB item operation's authorization. */
function itemRequest(
  action: string,
  input: Json,
  partitionKey: PartitionKeyOf,
  via: string,
  withReturnValues: boolean,
): IamRequest {
  const table = String(input.TableName);
  const key = partitionKey(table);
  const item = input.Key ?? input.Item ?? {};
  const names = input.ExpressionAttributeNames;
  const attributes = new Set([
    ...Object.keys(item),
    ...(action === 'dynamodb:PutItem' ? [] : expressionAttributes(input.UpdateExpression, names)),
    ...expressionAttributes(input.ConditionExpression, names),
    ...expressionAttributes(input.ProjectionExpression, names),
  ]);
  const leading = key ? (scalar(item[key]) ?? keyConditionValue(input, key)) : undefined;
  return {
    action,
    resource: input.IndexName ? `${tableArn(table)}/index/${input.IndexName}` : tableArn(table),
    context: {
      ...(leading !== undefined && { 'dynamodb:LeadingKeys': [leading] }),
      ...(action !== 'dynamodb:Query' && { 'dynamodb:Attributes': [...attributes] }),
      ...(withReturnValues && input.ReturnValues && { 'dynamodb:ReturnValues': input.ReturnValues }),
      ...(input.Select && { 'dynamodb:Select': input.Select }),
    },
    via,
  };
}

/** What IAM authorizes for one call, as AWS documents it for each operation. */
export function iamRequests(call: WireCall, partitionKey: PartitionKeyOf): IamRequest[] {
  const { service, operation, body } = call;
  if (service === 'kms') {
    const key = String(body.KeyId);
    return [
      {
        action: `kms:${operation}`,
        resource: key.startsWith('arn:') ? key : `arn:aws:kms:${REGION}:${ACCOUNT}:key/${key}`,
        context: body.MacAlgorithm ? { 'kms:MacAlgorithm': body.MacAlgorithm } : {},
        via: operation,
      },
    ];
  }
  if (service === 'events') {
    const buses = new Set<string>(body.Entries.map((e: Json) => e.EventBusName ?? 'default'));
    return [...buses].map((bus) => ({
      action: 'events:PutEvents',
      resource: bus.startsWith('arn:') ? bus : `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${bus}`,
      context: {},
      via: operation,
    }));
  }
  if (service === 'streams') {
    const arn = operation === 'GetRecords' ? streamArn(call.streamArn) : streamArn(body.StreamArn);
    return [
      {
        action: `dynamodb:${operation}`,
        resource: operation === 'ListStreams' ? '*' : arn,
        context: {},
        via: operation,
      },
    ];
  }
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    const actions: Record<string, string> = {
      Put: 'dynamodb:PutItem',
      Update: 'dynamodb:UpdateItem',
      Delete: 'dynamodb:DeleteItem',
      ConditionCheck: 'dynamodb:ConditionCheckItem',
      Get: 'dynamodb:GetItem',
    };
    return body.TransactItems.map((entry: Json, i: number) => {
      const [kind, input] = Object.entries(entry)[0] as [string, Json];
      return itemRequest(
        actions[kind] as string,
        input,
        partitionKey,
        `${operation} item ${i + 1} (${kind})`,
        false,
      );
    });
  }
  if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') {
    return Object.entries<Json>(body.RequestItems).map(([table, input]): IamRequest => {
      const key = partitionKey(table);
      const keys: Json[] = input.Keys ?? input.map((w: Json) => w.PutRequest?.Item ?? w.DeleteRequest?.Key);
      return {
        action: `dynamodb:${operation}`,
        resource: tableArn(table),
        context: key
          ? { 'dynamodb:LeadingKeys': keys.map((k) => scalar(k[key]) as string) }
          : ({} as Record<string, string>),
        via: `${operation} ${table}`,
      };
    });
  }
  return [itemRequest(`dynamodb:${operation}`, body, partitionKey, operation, true)];
}

export interface Verdict {
  request: IamRequest;
  allowed: boolean;
  /** The statements (policy name and index) that allowed it. */
  allowedBy: string[];
  detail: string;
}

/**
 * Evaluates a request against the role's identity policies (and, for KMS, the key policy,
 * which must admit the role too) with IAM's evaluation logic.
 */
export async function simulate(
  principal: string,
  policies: { name: string; document: Json }[],
  request: IamRequest,
  resourcePolicy?: Json,
): Promise<Verdict> {
  const response = await runSimulation(
    {
      identityPolicies: policies.map((p) => ({ name: p.name, policy: p.document })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy && { resourcePolicy }),
      request: {
        principal,
        action: request.action,
        resource: { resource: request.resource, accountId: ACCOUNT },
        // What AWS adds to every request of a role session.
        contextVariables: {
          'aws:PrincipalArn': principal,
          'aws:PrincipalAccount': ACCOUNT,
          ...request.context,
        },
      },
    },
    {},
  );
  if (response.resultType === 'error') {
    return { request, allowed: false, allowedBy: [], detail: JSON.stringify(response.errors) };
  }
  const result = response.resultType === 'single' ? response.result : undefined;
  const allowedBy = (result?.analysis?.identityAnalysis?.allowStatements ?? []).map(
    (s: Json) =>
      `${s.explain?.policyId ?? s.policyId ?? ''}#${s.explain?.identifier ?? s.statement?.index ?? ''}`,
  );
  return {
    request,
    allowed: response.overallResult === 'Allowed',
    allowedBy,
    detail: response.overallResult,
  };
}
