import { type Environment, Stack, Stage, type StageProps, Token, ValidationError } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Grant, IGrantable, IPrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import {
  contextSettings,
  type DeploymentSettings,
  type DeploymentSettingsInput,
  INVALID_SETTINGS,
  keyAdministratorProblems,
  parseSettings,
  settingsProblems,
} from './settings.ts';
import { StatefulStack } from './stacks/stateful.ts';
import { StatelessStack } from './stacks/stateless.ts';

/** Stack names; `npx cdk deploy <name>` deploys one. */
export const STACK_NAMES = {
  stateful: 'SvcMcpApiKeys-Stateful',
  stateless: 'SvcMcpApiKeys-Stateless',
} as const;

/** `McpApiKeyService`'s props: the deployment settings, and references to what you already have. */
export interface McpApiKeyServiceProps {
  /**
   * The deployment settings (docs/deploying.md, "Settings"): `jwtIssuer` and `jwtAudience` are
   * required; anything unset here is read from CDK context (`-c name=value`), then defaulted.
   * Every problem is a `ValidationError` at synth, one line per setting. @default context only
   */
  readonly settings?: Partial<DeploymentSettingsInput>;
  /**
   * The SNS topic (standard, not FIFO) every alarm notifies, on ALARM and on OK; in place of the
   * `alarmTopicArn` setting (not both). @default a topic is created (its ARN is the stateless
   * stack's `AlarmTopicArn` output)
   */
  readonly alarmTopic?: ITopic;
  /**
   * The form service's memberships table, in the deployment's account and region; in place of the
   * `membershipsTableName` setting (not both). The stateful stack refers to it by name.
   * @default a memberships table is created (a standalone deployment)
   */
  readonly membershipsTable?: ITableV2;
  /**
   * IAM roles or users of the deployment's account who administer the pepper key (none of them
   * may use it), beside those of the `keyAdministratorArns` setting. Name ones the service's
   * stacks may depend on: imported roles (`Role.fromRoleName`), `ArnPrincipal`s, or roles of a
   * stack that does not use the service. @default none (any IAM principal of the account allowed
   * to by IAM may administer the key)
   */
  readonly keyAdministrators?: readonly IPrincipal[];
  /**
   * The account and region of the service's two stacks. @default in a stack, that stack's
   * account and region; in a stage or an app, the stage's
   */
  readonly env?: Environment;
  /**
   * The start of the two stacks' names: `<prefix>-SvcMcpApiKeys-Stateful` and
   * `<prefix>-SvcMcpApiKeys-Stateless`. @default in a stack, `<stack name>-<id>`; in a stage,
   * `<stage name>-<id>`; in an app, `<id>`
   */
  readonly stackNamePrefix?: string;
}

/** The enclosing stack of `scope`, if it has one (`Stack.of` throws when there is none). */
function enclosingStack(scope: Construct): Stack | undefined {
  return scope.node.scopes.reverse().find((c): c is Stack => Stack.isStack(c));
}

/** The ARNs of IAM principals (tokens included); a service or federated principal is a problem. */
function principalArns(principals: readonly IPrincipal[]): { arns: string[]; problems: string[] } {
  const arns: string[] = [];
  const problems: string[] = [];
  for (const principal of principals) {
    const aws = principal.policyFragment.principalJson.AWS;
    if (!aws || Object.keys(principal.policyFragment.principalJson).length !== 1) {
      problems.push(`- keyAdministrators: ${principal} is not an IAM role or user`);
      continue;
    }
    arns.push(...aws);
  }
  return { arns, problems };
}

/**
 * The whole key service as one construct, for a platform team's own CDK app: the two stacks the
 * service's own app deploys, `<prefix>-SvcMcpApiKeys-Stateful` (keys table, pepper key,
 * memberships table) and `<prefix>-SvcMcpApiKeys-Stateless` (APIs, functions, alarms), with the
 * same settings. Place it in your own stack, stage or app: its stacks are its children (in a
 * stack, two stacks beside yours in its stage, in your stack's account and region, so that the
 * tables and the pepper key keep their own lifecycle), and your stack may refer to them
 * (`grantVerify`, `stateful.keysTable`). For a stage of its own, as the service's own pipeline
 * deploys it (a CDK Pipelines wave), use `McpApiKeyServiceStage`. Bad props throw a CDK
 * `ValidationError` naming each.
 */
export class McpApiKeyService extends Construct {
  /** The settings both stacks were built with, validated and defaulted (typed references included). */
  readonly settings: DeploymentSettings;
  /** `<prefix>-SvcMcpApiKeys-Stateful`: the tables and the pepper key. */
  readonly stateful: StatefulStack;
  /** `<prefix>-SvcMcpApiKeys-Stateless`: the APIs, the functions, the alarms. */
  readonly stateless: StatelessStack;

  constructor(scope: Construct, id: string, props: McpApiKeyServiceProps = {}) {
    super(scope, id);
    // Producer-protecting exports between the stacks, chosen explicitly (as the service's app).
    this.node.setContext('@aws-cdk/core:defaultCrossStackReferences', 'strong');
    const parent = enclosingStack(this);
    const env = props.env ?? (parent && this.environmentOf(parent));
    this.settings = this.validate(props, env);
    const prefix = props.stackNamePrefix ?? this.defaultPrefix(parent);
    const stackProps = (name: string) => ({ stackName: `${prefix}-${name}`, ...(env && { env }) });
    this.stateful = new StatefulStack(this, STACK_NAMES.stateful, {
      ...stackProps(STACK_NAMES.stateful),
      settings: this.settings,
    });
    this.stateless = new StatelessStack(this, STACK_NAMES.stateless, {
      ...stackProps(STACK_NAMES.stateless),
      settings: this.settings,
      keysTable: this.stateful.keysTable,
      membershipsTable: this.stateful.membershipsTable,
      pepperKey: this.stateful.pepperKey,
    });
  }

  /**
   * Lets `grantee` (an MCP server's function or role, in this account or another) verify keys
   * in-process: `StatefulStack.grantVerify`, which says what it grants and how.
   */
  grantVerify(grantee: IGrantable): Grant {
    return this.stateful.grantVerify(grantee);
  }

  /** The settings with the typed references folded in; every problem in one `ValidationError`. */
  private validate(props: McpApiKeyServiceProps, env: Environment | undefined): DeploymentSettings {
    const input = props.settings ?? {};
    const problems: string[] = [];
    const both = (prop: string, setting: keyof DeploymentSettingsInput) => {
      if (input[setting] !== undefined)
        problems.push(`- ${prop}: set either ${prop} or the ${setting} setting, not both`);
    };
    if (props.alarmTopic) {
      both('alarmTopic', 'alarmTopicArn');
      if (props.alarmTopic.fifo) problems.push('- alarmTopic: must be a standard SNS topic, not FIFO');
    }
    if (props.membershipsTable) {
      both('membershipsTable', 'membershipsTableName');
      const table = props.membershipsTable.env;
      const differs = (a: string | undefined, b: string | undefined) =>
        a !== undefined && b !== undefined && !Token.isUnresolved(a) && !Token.isUnresolved(b) && a !== b;
      if (differs(table.account, env?.account) || differs(table.region, env?.region))
        problems.push(
          "- membershipsTable: must be in the deployment's account and region (the stateful stack refers to it by name)",
        );
    }
    const admins = principalArns(props.keyAdministrators ?? []);
    problems.push(...admins.problems);
    const literal = admins.arns.filter((arn) => !Token.isUnresolved(arn));
    problems.push(...keyAdministratorProblems(literal, 'keyAdministrators'));
    const given = contextSettings(this.node, input);
    problems.push(...settingsProblems(given));
    if (problems.length > 0)
      throw new ValidationError(
        INVALID_SETTINGS,
        `invalid deployment settings:\n${problems.join('\n')}`,
        this,
      );
    const settings = parseSettings(given, this);
    return {
      ...settings,
      ...(props.alarmTopic && { alarmTopicArn: props.alarmTopic.topicArn }),
      ...(props.membershipsTable && { membershipsTableName: props.membershipsTable.tableName }),
      keyAdministratorArns: [...settings.keyAdministratorArns, ...admins.arns],
    };
  }

  private defaultPrefix(parent: Stack | undefined): string {
    if (parent) return `${parent.stackName}-${this.node.id}`;
    const stage = Stage.of(this);
    return stage?.stageName ? `${stage.stageName}-${this.node.id}` : this.node.id;
  }

  /** The enclosing stack's account and region, where they are known at synth. */
  private environmentOf(parent: Stack): Environment | undefined {
    const account = Token.isUnresolved(parent.account) ? undefined : parent.account;
    const region = Token.isUnresolved(parent.region) ? undefined : parent.region;
    return account || region ? { ...(account && { account }), ...(region && { region }) } : undefined;
  }
}

/** `McpApiKeyServiceStage`'s props: a `Stage`'s, and the service's. */
export interface McpApiKeyServiceStageProps extends StageProps, Omit<McpApiKeyServiceProps, 'env'> {}

/**
 * The whole service in a `Stage` of its own, as `McpApiKeyService` was before it became a
 * construct: stacks named `<stage name>-SvcMcpApiKeys-Stateful` and `-Stateless`, ready for an
 * `App` or a CDK Pipelines wave. Stacks of yours that use the service go in this stage.
 */
export class McpApiKeyServiceStage extends Stage {
  /** The service. */
  readonly service: McpApiKeyService;

  constructor(scope: Construct, id: string, props: McpApiKeyServiceStageProps = {}) {
    const { settings, alarmTopic, membershipsTable, keyAdministrators, stackNamePrefix, ...stageProps } =
      props;
    super(scope, id, stageProps);
    this.service = new McpApiKeyService(this, 'Service', {
      ...(settings && { settings }),
      ...(alarmTopic && { alarmTopic }),
      ...(membershipsTable && { membershipsTable }),
      ...(keyAdministrators && { keyAdministrators }),
      stackNamePrefix: stackNamePrefix ?? this.stageName,
    });
  }

  /** The settings both stacks were built with. */
  get settings(): DeploymentSettings {
    return this.service.settings;
  }

  /** `<stage name>-SvcMcpApiKeys-Stateful`: the tables and the pepper key. */
  get stateful(): StatefulStack {
    return this.service.stateful;
  }

  /** `<stage name>-SvcMcpApiKeys-Stateless`: the APIs, the functions, the alarms. */
  get stateless(): StatelessStack {
    return this.service.stateless;
  }

  /** `McpApiKeyService.grantVerify`. */
  grantVerify(grantee: IGrantable): Grant {
    return this.service.grantVerify(grantee);
  }
}
