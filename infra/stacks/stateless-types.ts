import type { StackProps } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { DeploymentSettings } from '../settings.ts';

/**
 * The stateless stack's types, which its stack and the modules it is built from (its functions,
 * the management API) all import: one module, so that none of them imports another in a circle.
 */

/** The stateless stack's settings and the stateful stack's resources it uses. */
export interface StatelessStackProps extends StackProps {
  /** The deployment settings (`parseSettings`). */
  settings: DeploymentSettings;
  /** The keys table (`StatefulStack.keysTable`). */
  keysTable: ITableV2;
  /** The memberships table (`StatefulStack.membershipsTable`). */
  membershipsTable: ITableV2;
  /** The pepper key (`StatefulStack.pepperKey`). */
  pepperKey: IKey;
}

/**
 * Every function of the stateless stack's request path, by its file in functions/: written out so
 * that the published API names them, and checked against the routes below.
 */
export type StatelessFunctionName =
  | 'create-key'
  | 'list-keys'
  | 'rotate-key'
  | 'revoke-key'
  | 'update-key'
  | 'list-mcp-tools'
  | 'list-events'
  | 'list-workspace-keys'
  | 'cut-off-key'
  | 'get-workspace-policy'
  | 'put-workspace-policy'
  | 'list-workspace-events'
  | 'get-key-usage'
  | 'get-workspace-usage'
  | 'report-leaked-keys'
  | 'github-secret-scanning'
  | 'get-oauth-request'
  | 'approve-oauth-request'
  | 'deny-oauth-request'
  | 'mcp-server'
  | 'mcp-authorizer'
  | 'oauth';
