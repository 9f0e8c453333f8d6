import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import {
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
  Validations,
} from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** Name under which the CfnGuardValidator plugin reports (its rule ids are prefixed with it). */
export const GUARD_PLUGIN = 'cdk-validator-cfnguard';

/**
 * The AWS Control Tower proactive controls this service deliberately does not meet, each with
 * its reason. They are acknowledged on the constructs concerned (never for the whole app), so a
 * new resource that breaks the same control still fails synth until it is acknowledged too.
 */
export const GUARD_EXCEPTIONS = {
  lambdaOutsideVpc: {
    control: 'CT.LAMBDA.PR.3',
    rule: 'lambda_inside_vpc_check',
    reason:
      'The functions call only AWS APIs (DynamoDB, KMS, CloudWatch) over TLS with IAM authorization and reach ' +
      'nothing in a private network; a VPC would add NAT gateways or interface endpoints, cold-start time and ' +
      'cost without reducing what the functions can reach.',
  },
  logGroupWithoutCustomerKey: {
    control: 'CT.CLOUDWATCH.PR.3',
    rule: 'cloudwatch_log_group_encrypted_check',
    reason:
      'CloudWatch Logs encrypts every log group at rest with keys it manages. These logs never contain a key, ' +
      'a digest or a token, so a customer managed key would add a KMS dependency and cost to logging and ' +
      'protect nothing secret.',
  },
  logRetentionBelowOneYear: {
    control: 'CT.CLOUDWATCH.PR.2',
    rule: 'cloudwatch_log_group_retention_period_check',
    reason:
      'Log retention is the logRetentionDays deployment setting (default 30 days): these are operational logs, ' +
      'and the record of key changes is kept in the keys table. A deployment that must keep logs for a year ' +
      'sets logRetentionDays=365, and this exception is then not applied.',
  },
  apiGatewayInvokePermission: {
    control: 'CT.LAMBDA.PR.2',
    rule: 'lambda_function_public_access_prohibited_check',
    reason:
      'Each permission lets only apigateway.amazonaws.com invoke the function, with SourceArn set to this ' +
      "API's execute-api ARN (an infra test asserts it). The rule reads SourceArn only as a literal string or " +
      'a local Ref/GetAtt, and CDK builds it with Fn::Join.',
  },
  restApiExecutionLogging: {
    control: 'CT.APIGATEWAY.PR.1',
    rule: 'api_gw_v1_execution_logging_enabled_check',
    reason:
      'Execution logging needs the account-wide API Gateway CloudWatch role, which this stack must not own; the ' +
      'stage writes JSON access logs of every request and the key authorizer logs each decision.',
  },
  deadLetterQueueWithoutDeadLetterQueue: {
    control: 'CT.SQS.PR.1',
    rule: 'sqs_dlq_check',
    reason:
      'Each such queue is itself the dead-letter destination of a stream consumer (event publishing, the ' +
      'workspace policy fan-out); a dead-letter queue of its own would only move the same records one hop ' +
      'further. Its alarm fires on the first message.',
  },
  unauthenticatedRoutes: {
    control: 'CT.APIGATEWAY.PR.5',
    rule: 'api_gw_v2_authorization_type_configured_check',
    reason:
      'The two leak routes take no credentials by design (contract §11): holding a key is the authority to ' +
      "revoke it, the GitHub route verifies GitHub's signature over the raw body, and each route has its own " +
      'throttling. With OAuth on, so do the OAuth protocol routes (contract §15), which a client calls before ' +
      'it holds a credential; registration and token have their own throttling. Every other route has the ' +
      'JWT authorizer or the key authorizer.',
  },
} as const;

export type GuardException = (typeof GUARD_EXCEPTIONS)[keyof typeof GUARD_EXCEPTIONS];

/** Acknowledges a guard rule on `scope` and everything under it, recording the reason in the assembly. */
export function acknowledgeGuardRule(scope: IConstruct, exception: GuardException): void {
  Validations.of(scope).acknowledge({
    id: `${GUARD_PLUGIN}::${exception.rule}`,
    reason: `${exception.control}: ${exception.reason}`,
  });
}

/** A CloudFormation resource type as a guard rule names it. */
const RESOURCE_TYPE = /AWS::[A-Za-z0-9]+::[A-Za-z0-9]+/g;

let bundledRules: { file: string; types: ReadonlySet<string> }[] | undefined;

/** CfnGuardValidator's bundled Control Tower rule files, each with the resource types it names. */
function controlTowerRules(): { file: string; types: ReadonlySet<string> }[] {
  if (!bundledRules) {
    const pkg = dirname(
      createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json'),
    );
    const root = join(pkg, 'rules', 'control-tower', 'cfn-guard');
    bundledRules = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.guard'))
      .map((entry) => join(entry.parentPath, entry.name))
      .sort()
      .map((file) => ({ file, types: new Set(readFileSync(file, 'utf8').match(RESOURCE_TYPE)) }));
  }
  return bundledRules;
}

/**
 * The bundled rule files that can report anything on these templates: those that name a resource
 * type the templates have, and any that names none. A Control Tower rule selects the resources it
 * checks by type, and names each type it selects; on a template without them it can only skip.
 * cfn-guard evaluates every rule it is given over the whole template (about 25 ms a rule on the
 * stateless stack's), so the 237 rules, most for services this app does not use (EC2, RDS, S3...),
 * cost some 6 s of CPU per synth where the ones that apply cost about 1 s.
 */
export function rulesFor(templatePaths: readonly string[]): string[] {
  const present = new Set<string>();
  for (const path of templatePaths) {
    const template = JSON.parse(readFileSync(path, 'utf8')) as {
      Resources?: Record<string, { Type?: string }>;
    };
    for (const resource of Object.values(template.Resources ?? {}))
      if (resource.Type) present.add(resource.Type);
  }
  return controlTowerRules()
    .filter(({ types }) => types.size === 0 || [...types].some((type) => present.has(type)))
    .map(({ file }) => file);
}

/**
 * The AWS Control Tower proactive controls (CfnGuardValidator's bundled rules), with every
 * violation marked as an error. Once any rule is acknowledged, aws-cdk-lib recomputes a report's
 * success from its remaining violations' severities, and CfnGuardValidator leaves the severity
 * unset: without this, an unacknowledged violation next to an acknowledged one would pass synth.
 * Each synth runs the rules that can apply to its templates (`rulesFor`): the same findings as
 * all of them, in a sixth of the time.
 */
export class ControlTowerGuardRules implements IPolicyValidationPlugin {
  private readonly guard = new CfnGuardValidator();
  readonly name = this.guard.name;
  readonly version = this.guard.version;
  readonly ruleIds = this.guard.ruleIds;

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const rules = rulesFor(context.templatePaths);
    const report =
      rules.length === 0
        ? { success: true, violations: [] }
        : new CfnGuardValidator({ controlTowerRulesEnabled: false, rules }).validate(context);
    return {
      ...report,
      violations: report.violations.map((v) => ({ ...v, severity: v.severity ?? 'error' })),
    };
  }
}
