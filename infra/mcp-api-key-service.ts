import { Stage, type StageProps } from 'aws-cdk-lib';
import type { Grant, IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { type DeploymentSettings, type DeploymentSettingsInput, settingsFromContext } from './settings.ts';
import { StatefulStack } from './stacks/stateful.ts';
import { StatelessStack } from './stacks/stateless.ts';

/** Stack names; `npx cdk deploy <name>` deploys one. */
export const STACK_NAMES = {
  stateful: 'SvcMcpApiKeys-Stateful',
  stateless: 'SvcMcpApiKeys-Stateless',
} as const;

/** `McpApiKeyService`'s props: a `Stage`'s, and the deployment settings. */
export interface McpApiKeyServiceProps extends StageProps {
  /**
   * The deployment settings (README, "Deployment (CDK)"): `jwtIssuer` and `jwtAudience` are
   * required; anything unset here is read from CDK context (`-c name=value`), then defaulted.
   * Every problem is reported at synth, one line each. @default context only
   */
  settings?: Partial<DeploymentSettingsInput>;
}

/**
 * The whole key service as one construct for a platform team's own CDK app: a `Stage` holding
 * the two stacks the service's own app deploys, `<id>-SvcMcpApiKeys-Stateful` (keys table, pepper
 * key, memberships table) and `<id>-SvcMcpApiKeys-Stateless` (APIs, functions, alarms), with the
 * same settings. Place it in an `App` (or a CDK Pipelines wave) and add your checks to the app.
 */
export class McpApiKeyService extends Stage {
  /** The settings both stacks were built with, validated and defaulted. */
  readonly settings: DeploymentSettings;
  /** `<id>-SvcMcpApiKeys-Stateful`: the tables and the pepper key. */
  readonly stateful: StatefulStack;
  /** `<id>-SvcMcpApiKeys-Stateless`: the APIs, the functions, the alarms. */
  readonly stateless: StatelessStack;

  constructor(scope: Construct, id: string, props: McpApiKeyServiceProps = {}) {
    const { settings, ...stageProps } = props;
    super(scope, id, stageProps);
    // Producer-protecting exports between the two stacks, chosen explicitly (as the service's app).
    this.node.setContext('@aws-cdk/core:defaultCrossStackReferences', 'strong');
    this.settings = settingsFromContext(this.node, settings);
    this.stateful = new StatefulStack(this, STACK_NAMES.stateful, { settings: this.settings });
    this.stateless = new StatelessStack(this, STACK_NAMES.stateless, {
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
}
