import { Aws } from 'aws-cdk-lib';
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
}

/**
 * The policy of the KMS HMAC_256 key from which the API key digest pepper is derived. It does not
 * trust the account with `kms:*`: administrators administer, and only the service's own roles (by
 * IAM path) may call `kms:GenerateMac`, the one operation the service needs. The functions' identity
 * policies must allow the call too, since the key policy delegates to IAM within the account.
 */
export function pepperKeyPolicy(props: PepperKeyPolicyProps = {}): PolicyDocument {
  const account = new AccountRootPrincipal();
  const roleArn = (pathAndName: string) => `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role${pathAndName}`;
  const pepperRoles = roleArn(`${PEPPER_ROLE_PATH}*`);
  const admins = props.administratorArns ?? [];
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
          StringEquals: { 'kms:MacAlgorithm': 'HMAC_SHA_256' },
        },
      }),
      // Whatever a later statement, an IAM policy or the root user may attempt: no MAC outside the service.
      new PolicyStatement({
        sid: 'NoMacOutsideServiceRoles',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['kms:GenerateMac', 'kms:VerifyMac'],
        resources: ['*'],
        conditions: { ArnNotLike: { 'aws:PrincipalArn': pepperRoles } },
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
