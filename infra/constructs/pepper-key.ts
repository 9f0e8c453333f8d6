import { Aws, Lazy } from 'aws-cdk-lib';
import {
  AccountRootPrincipal,
  AnyPrincipal,
  Effect,
  PolicyDocument,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';

/**
 * IAM path of the roles that may derive the pepper. The key policy lets principals of the account
 * call `kms:GenerateMac` only when their role is under this path, and the functions that need
 * the pepper get their roles here (`ServiceFunction`'s `pepperKey`). A path rather than a reference
 * to the roles: the key (stateful stack) must not depend on the functions (stateless stack).
 */
export const PEPPER_ROLE_PATH = '/svc-mcp-api-keys/pepper/';

/**
 * The principal tag that lets a role or user of the key's own account call `kms:GenerateMac`,
 * besides the roles under PEPPER_ROLE_PATH: `grantVerify` sets it on the roles and users it
 * grants (decision 63 in docs/decisions.md). A tag rather than the grantee's ARN, because the
 * grantee lives in a stack that depends on the key's: naming it in the key policy would make the
 * key's stack depend back. Its identity policy must allow the call too (the key policy delegates
 * to IAM within the account), so the tag alone gives nothing.
 */
export const VERIFIER_TAG = { key: 'svc-mcp-api-keys:verify', value: 'true' } as const;

/** Name of the role CloudFormation deploys with after `cdk bootstrap` (any qualifier, account, region). */
export const CDK_DEPLOY_ROLE_NAME = 'cdk-*-cfn-exec-role-*';

/** What a key administrator may do: everything but using the key (no MAC, no grants, no `kms:*`). */
export const KEY_ADMIN_ACTIONS = [
  'kms:CancelKeyDeletion',
  'kms:CreateAlias',
  'kms:DeleteAlias',
  'kms:DescribeKey',
  'kms:DisableKey',
  'kms:EnableKey',
  'kms:GetKeyPolicy',
  'kms:GetKeyRotationStatus',
  'kms:ListGrants',
  'kms:ListKeyPolicies',
  'kms:ListResourceTags',
  'kms:PutKeyPolicy',
  'kms:RevokeGrant',
  'kms:ScheduleKeyDeletion',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:UpdateAlias',
  'kms:UpdateKeyDescription',
];

export interface PepperKeyPolicyProps {
  /**
   * IAM role or user ARNs (wildcards allowed) that administer the key. The CDK deployment role is
   * always added, so a deployment can update the key policy (KMS refuses a policy that would lock
   * out the principal setting it). @default none: any principal of the account that IAM allows
   */
  administratorArns?: string[];
  /**
   * ARNs (no tokens) of principals `grantVerify` admitted by name: those of other accounts, and
   * those of this account it cannot tag. Read at synth, so grants made after the policy was built
   * count. Each needs its own key policy statement too (`verifierKeyStatement`). @default none
   */
  verifierArns?: readonly string[];
}

/** The key policy condition on the verifier tag (VERIFIER_TAG). */
const verifierTag = { [`aws:PrincipalTag/${VERIFIER_TAG.key}`]: VERIFIER_TAG.value };

/** The only MAC algorithm the key may be used with (the pepper derivation's). */
const HMAC_SHA_256 = { 'kms:MacAlgorithm': 'HMAC_SHA_256' };

/**
 * The key policy statement that lets principals named by ARN call `kms:GenerateMac` (principals
 * of another account, whose own identity policy must allow the call too).
 */
export function verifierKeyStatement(): PolicyStatement {
  return new PolicyStatement({
    sid: 'PepperDerivationByGrantedPrincipals',
    actions: ['kms:GenerateMac'],
    resources: ['*'],
    conditions: { StringEquals: HMAC_SHA_256 },
  });
}

/**
 * The policy of the KMS HMAC_256 key from which the API key digest pepper is derived. It does not
 * trust the account with `kms:*`: administrators administer, and only the service's own roles (by
 * IAM path), the principals `grantVerify` tagged (VERIFIER_TAG) and those it named (`verifierArns`)
 * may call `kms:GenerateMac`, the one operation the service needs. The identity policies of the
 * account's principals must allow the call too, since the key policy delegates to IAM within the
 * account.
 */
export function pepperKeyPolicy(props: PepperKeyPolicyProps = {}): PolicyDocument {
  const account = new AccountRootPrincipal();
  const roleArn = (pathAndName: string) => `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role${pathAndName}`;
  const pepperRoles = roleArn(`${PEPPER_ROLE_PATH}*`);
  const admins = props.administratorArns ?? [];
  const verifierArns = props.verifierArns ?? [];
  // Besides the service's roles, the principals granted by ARN (resolved at synth).
  const namedArns = Lazy.list({ produce: () => [pepperRoles, ...verifierArns] });
  return new PolicyDocument({
    statements: [
      new PolicyStatement({
        sid: 'KeyAdministration',
        principals: [account],
        actions: KEY_ADMIN_ACTIONS,
        resources: ['*'],
        ...(admins.length > 0 && {
          conditions: { ArnLike: { 'aws:PrincipalArn': [...admins, roleArn(`/${CDK_DEPLOY_ROLE_NAME}`)] } },
        }),
      }),
      new PolicyStatement({
        sid: 'PepperDerivationByServiceRoles',
        principals: [account],
        actions: ['kms:GenerateMac'],
        resources: ['*'],
        conditions: {
          ArnLike: { 'aws:PrincipalArn': pepperRoles },
          StringEquals: HMAC_SHA_256,
        },
      }),
      new PolicyStatement({
        sid: 'PepperDerivationByGrantedVerifiers',
        principals: [account],
        actions: ['kms:GenerateMac'],
        resources: ['*'],
        conditions: { StringEquals: { ...verifierTag, ...HMAC_SHA_256 } },
      }),
      // Whatever a later statement, an IAM policy or the root user may attempt: no MAC outside the
      // service's roles and the principals granted to verify (tagged, or named by ARN).
      new PolicyStatement({
        sid: 'NoMacOutsideServiceRoles',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['kms:GenerateMac', 'kms:VerifyMac'],
        resources: ['*'],
        conditions: { ArnNotLike: { 'aws:PrincipalArn': namedArns }, StringNotEquals: verifierTag },
      }),
      // AWS Control Tower CT.KMS.PR.3: grants only for AWS services (this key needs none).
      new PolicyStatement({
        sid: 'GrantsOnlyForAwsServices',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: {
          BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' },
        },
      }),
    ],
  });
}
