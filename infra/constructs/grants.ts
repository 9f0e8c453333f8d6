import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Grants, GrantTarget } from '#lib/routes/route-module';

/**
 * Least privilege: adds a function's declared DynamoDB statements (a route module's or a
 * handler's `Grants`) to its role, each on exactly the tables it names.
 */
export function grantDynamo(fn: IFunction, grants: Grants, tables: Record<GrantTarget, string>): void {
  for (const grant of grants.dynamodb)
    fn.addToRolePolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: grant.actions,
        resources: grant.on.map((target) => tables[target]),
        ...(grant.conditions && { conditions: grant.conditions }),
      }),
    );
}
