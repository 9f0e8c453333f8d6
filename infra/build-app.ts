import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type DeploymentSettingsInput, settingsFromContext } from './settings.ts';
import { StatefulStack } from './stacks/stateful.ts';
import { StatelessStack } from './stacks/stateless.ts';

/** Stack names; `npx cdk deploy <name>` deploys one. */
export const STACK_NAMES = {
  stateful: 'SvcMcpApiKeys-Stateful',
  stateless: 'SvcMcpApiKeys-Stateless',
} as const;

/** The app: both stacks, settings from context (or `settings`), cdk-nag AwsSolutions on everything. */
export function buildApp(
  options: { context?: Record<string, unknown>; settings?: Partial<DeploymentSettingsInput> } = {},
) {
  const app = new App({
    context: {
      // Producer-protecting exports between the two stacks, chosen explicitly.
      '@aws-cdk/core:defaultCrossStackReferences': 'strong',
      ...options.context,
    },
  });
  const settings = settingsFromContext(app.node, options.settings);
  const stateful = new StatefulStack(app, STACK_NAMES.stateful, { settings });
  const stateless = new StatelessStack(app, STACK_NAMES.stateless, {
    settings,
    keysTable: stateful.keysTable,
    membershipsTable: stateful.membershipsTable,
    pepperKey: stateful.pepperKey,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stateful, stateless, settings };
}
