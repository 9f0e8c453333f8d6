import { CfnResource, Resource, Stack, Tags, Token, TokenComparison } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import {
  Grant,
  type IGrantable,
  type IPrincipal,
  type IResourceWithPolicy,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { MCP_AUTHORIZER_GRANTS } from '#lib/handlers/mcp-authorizer';
import type { GrantTarget } from '#lib/routes/route-module';
import { BY_USER } from '#lib/store/tables';
import { VERIFIER_TAG } from './pepper-key.ts';

/** The resources an in-process verifier calls, by ARN. */
export interface VerifierResourceArns {
  /** The keys table (the stateful stack's `KeysTableArn` output). */
  keysTableArn: string;
  /** The memberships table. */
  membershipsTableArn: string;
  /** The pepper key (the stateful stack's `PepperKeyArn` output). */
  pepperKeyArn: string;
}

/**
 * What a key verifier calls (`createKeyVerifier`, `verifyMcpKey`), as the key authorizer's role is
 * granted it: `GetItem` and `BatchGetItem` on the keys table, `BatchGetItem` and `Query` on the
 * memberships table, the `last_used_at` update (`UpdateItem` limited to `pk`, `sk` and
 * `last_used_at` and the days' calls, returning nothing), the usage counts (`PutItem` of `USAGE#`
 * items only), and
 * `kms:GenerateMac` on the pepper key.
 */
const VERIFIER_GRANTS = MCP_AUTHORIZER_GRANTS;

/**
 * The identity policy statements a verifier's role needs, on exactly these resources. `grantVerify`
 * adds them to the grantee it is given; a role in another account, or in another CDK app, gets them
 * from here (its own account's side of a cross-account grant), with the ARNs of the key service's
 * deployment.
 */
export function verifierPolicyStatements(arns: VerifierResourceArns): PolicyStatement[] {
  const tables: Record<GrantTarget, string> = {
    keys: arns.keysTableArn,
    'keys-by-user': `${arns.keysTableArn}/index/${BY_USER.indexName}`,
    memberships: arns.membershipsTableArn,
  };
  return [
    ...VERIFIER_GRANTS.dynamodb.map(
      (grant) =>
        new PolicyStatement({
          actions: grant.actions,
          resources: grant.on.map((target) => tables[target]),
          ...(grant.conditions && { conditions: grant.conditions }),
        }),
    ),
    new PolicyStatement({ actions: ['kms:GenerateMac'], resources: [arns.pepperKeyArn] }),
  ];
}

/**
 * The statements a table's resource-based policy needs for a principal of another account: the
 * same calls as its identity statements, on the table the policy is attached to (`*`: a table's
 * policy cannot name its own ARN without depending on itself).
 */
export function verifierTableStatements(
  table: 'keys' | 'memberships',
  principal: IPrincipal,
): PolicyStatement[] {
  return VERIFIER_GRANTS.dynamodb
    .filter((grant) => grant.on.includes(table))
    .map(
      (grant) =>
        new PolicyStatement({
          principals: [principal],
          actions: grant.actions,
          resources: ['*'],
          ...(grant.conditions && { conditions: grant.conditions }),
        }),
    );
}

/** The service's resources a grant touches, and how the key policy admits a principal by ARN. */
export interface VerifierGrantTarget {
  scope: Construct;
  keysTable: ITableV2;
  membershipsTable: ITableV2;
  pepperKeyArn: string;
  /** Adds the key policy statement that names this principal (its ARN is a literal, or another environment's). */
  admitToPepperKey(principal: IPrincipal, arns: string[]): void;
}

/** Adds a statement to a table's resource-based policy; false for a table this app only imports. */
function addToTablePolicy(table: ITableV2, statement: PolicyStatement): boolean {
  const withPolicy = table as ITableV2 & Partial<Pick<IResourceWithPolicy, 'addToResourcePolicy'>>;
  return withPolicy.addToResourcePolicy?.(statement).statementAdded ?? false;
}

/** How a grantee's principal relates to the key service's account. */
type Placement =
  | { kind: 'tag'; resource: Construct }
  | { kind: 'by-arn'; arns: string[]; crossAccount: boolean };

/** The ARNs a principal stands for in a policy's `Principal` (an `AWS` principal's). */
function awsArns(principal: IPrincipal): unknown[] {
  const aws = principal.policyFragment.principalJson.AWS;
  return aws === undefined ? [] : Array.isArray(aws) ? aws : [aws];
}

function placementOf(target: VerifierGrantTarget, principal: IPrincipal): Placement {
  const account = Stack.of(target.scope).account;
  const comparison =
    principal.principalAccount === undefined
      ? undefined
      : Token.compareStrings(account, principal.principalAccount);
  // Both unresolved: the same environment-agnostic app (CDK's grants assume the same, too).
  const sameAccount = comparison === TokenComparison.SAME || comparison === TokenComparison.BOTH_UNRESOLVED;
  const arns = awsArns(principal);
  const where = `grantVerify: ${principal}`;
  if (arns.length === 0) throw new Error(`${where} is not an IAM role or user (no AWS principal ARN)`);
  if (arns.some((arn) => typeof arn === 'string' && /:root$/.test(arn)))
    throw new Error(`${where} is an account: grant the role (or user) that runs the verifier instead`);

  // A role or user this app creates in the key's own account: tagged, nothing in the key's stack changes.
  const cfn =
    Construct.isConstruct(principal) && Resource.isOwnedResource(principal)
      ? principal.node.defaultChild
      : undefined;
  const taggable =
    cfn instanceof CfnResource &&
    (cfn.cfnResourceType === 'AWS::IAM::Role' || cfn.cfnResourceType === 'AWS::IAM::User');
  if (taggable && sameAccount) return { kind: 'tag', resource: principal as unknown as Construct };

  // Otherwise by ARN, in the key policy (and, across accounts, the tables' policies). A literal
  // ARN references nothing; another account's role is resolved to its name by CDK (it has no export
  // to depend on). A same-account token would make the key's stack depend on the grantee's.
  const literal = arns.every((arn) => typeof arn === 'string' && !Token.isUnresolved(arn));
  if (!literal && comparison !== TokenComparison.DIFFERENT) {
    throw new Error(
      `${where}: its ARN is not known at synth and it is not a role or user created in this account, ` +
        'so the key policy cannot name it without depending on its stack. Grant a role this app creates, ' +
        "or the principal by its literal ARN (new ArnPrincipal('arn:aws:iam::…:role/…') or Role.fromRoleArn).",
    );
  }
  return { kind: 'by-arn', arns: arns as string[], crossAccount: !sameAccount };
}

/**
 * Lets `grantee` verify keys in-process: read on the keys and memberships tables as the verifier
 * reads, the `last_used_at` update, and `kms:GenerateMac` on the pepper key. The identity policy
 * statements go to the grantee. Then the resources must admit it too:
 *
 * - a role or user this app creates in the key's account gets the verifier tag (VERIFIER_TAG), which
 *   the key policy already admits: the key's stack gains nothing, so it never depends on the grantee's;
 * - a principal of another account, or one of this account given by a literal ARN (imported), is
 *   named by ARN in the key policy; across accounts (or when its identity policy cannot be written
 *   from here) the tables' resource-based policies name it too. The other account's administrator
 *   must still allow the calls in its own identity policy (`verifierPolicyStatements`).
 */
export function grantVerifyTo(target: VerifierGrantTarget, grantee: IGrantable): Grant {
  const principal = grantee.grantPrincipal;
  const placement = placementOf(target, principal);
  // Another account's identity policy is its administrator's to write: from here it would name
  // this deployment's resources across environments (or attach to a role this account lacks).
  const crossAccount = placement.kind === 'by-arn' && placement.crossAccount;
  const grant = crossAccount ? Grant.drop(grantee, 'verify MCP API keys') : grantIdentity(target, grantee);

  if (placement.kind === 'tag') {
    Tags.of(placement.resource).add(VERIFIER_TAG.key, VERIFIER_TAG.value, {
      includeResourceTypes: ['AWS::IAM::Role', 'AWS::IAM::User'],
    });
    return grant;
  }
  target.admitToPepperKey(principal, placement.arns);
  if (crossAccount || !grant.success) {
    for (const [name, table] of [
      ['keys', target.keysTable],
      ['memberships', target.membershipsTable],
    ] as const) {
      for (const statement of verifierTableStatements(name, principal)) {
        if (!addToTablePolicy(table, statement)) {
          throw new Error(
            `grantVerify: ${principal} needs a resource-based policy on the ${name} table, which this ` +
              'deployment imports (membershipsTableName): add these statements where that table is defined: ' +
              JSON.stringify(verifierTableStatements(name, principal).map((s) => s.toStatementJson())),
          );
        }
      }
    }
  }
  return grant;
}

/** The verifier's identity statements, added to the grantee's policy where it can be written. */
function grantIdentity(target: VerifierGrantTarget, grantee: IGrantable): Grant {
  const statements = verifierPolicyStatements({
    keysTableArn: target.keysTable.tableArn,
    membershipsTableArn: target.membershipsTable.tableArn,
    pepperKeyArn: target.pepperKeyArn,
  });
  return statements
    .map((statement) =>
      Grant.addToPrincipal({
        grantee,
        actions: statement.actions,
        resourceArns: statement.resources,
        ...(statement.conditions &&
          Object.keys(statement.conditions).length > 0 && { conditions: statement.conditions }),
      }),
    )
    .reduce((all, one) => all.combine(one));
}
