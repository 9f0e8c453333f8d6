import { App, type Environment, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ControlTowerGuardRules } from './guard.ts';
import { STACK_NAMES } from './mcp-api-key-service.ts';
import { type DeploymentSettingsInput, settingsFromContext } from './settings.ts';
import { StatefulStack } from './stacks/stateful.ts';
import { StatelessStack } from './stacks/stateless.ts';

export { STACK_NAMES };

/**
 * The app: both stacks, settings from context (or `settings`), checked at synth by cdk-nag
 * AwsSolutions and by the AWS Control Tower proactive controls (cfn-guard). Any finding that is
 * not acknowledged in code, with its reason, fails synth (infra/guard.ts lists the exceptions).
 * `env` binds both stacks to an account and region (@default none: environment-agnostic).
 * `checks: false` leaves both checkers out, for a test that reads what one setting puts in a
 * template; every app `npm run synth` and the infra tier's shared synth build has them.
 */
export function buildApp(
  options: {
    context?: Record<string, unknown>;
    settings?: Partial<DeploymentSettingsInput>;
    env?: Environment;
    checks?: boolean;
  } = {},
) {
  const app = new App({
    context: {
      // Producer-protecting exports between the two stacks, chosen explicitly.
      '@aws-cdk/core:defaultCrossStackReferences': 'strong',
      ...options.context,
    },
  });
  const settings = settingsFromContext(app.node, options.settings);
  const env = options.env;
  const stateful = new StatefulStack(app, STACK_NAMES.stateful, { settings, env });
  const stateless = new StatelessStack(app, STACK_NAMES.stateless, {
    settings,
    env,
    keysTable: stateful.keysTable,
    membershipsTable: stateful.membershipsTable,
    pepperKey: stateful.pepperKey,
  });
  if (options.checks !== false)
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ControlTowerGuardRules());
  return { app, stateful, stateless, settings };
}
