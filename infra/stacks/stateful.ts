import { CfnOutput, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  AttributeType,
  Billing,
  type ITableV2,
  ProjectionType,
  StreamViewType,
  TableEncryptionV2,
  type TablePropsV2,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import type { Grant, IGrantable, IPrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { KEYS_TABLE, MEMBERSHIPS_TABLE, type TableDefinition } from '#lib/store/tables';
import { pepperKeyPolicy, verifierKeyStatement } from '../constructs/pepper-key.ts';
import { grantVerifyTo } from '../constructs/verify-grant.ts';
import type { DeploymentSettings } from '../settings.ts';

/** The stateful stack's settings. */
export interface StatefulStackProps extends StackProps {
  /** The deployment settings (`parseSettings`): retention, pepper version, the memberships table. */
  settings: DeploymentSettings;
}

/** Table props from the shared definition (lib/store/tables.ts), so CDK, tests and local mode agree. */
function tableProps(def: TableDefinition): TablePropsV2 {
  const attr = (name: string) => ({ name, type: AttributeType.STRING });
  return {
    partitionKey: attr(def.partitionKey),
    sortKey: attr(def.sortKey),
    billing: Billing.onDemand(),
    encryption: TableEncryptionV2.awsManagedKey(),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
    ...(def.timeToLiveAttribute && { timeToLiveAttribute: def.timeToLiveAttribute }),
    ...(def.stream && { dynamoStream: StreamViewType[def.stream] }),
    globalSecondaryIndexes: def.globalIndexes.map((gsi) => ({
      indexName: gsi.indexName,
      partitionKey: attr(gsi.partitionKey),
      sortKey: attr(gsi.sortKey),
      ...(gsi.include
        ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: gsi.include }
        : { projectionType: ProjectionType.ALL }),
    })),
  };
}

/**
 * What must outlive every deployment: the keys table, the KMS HMAC key holding the pepper,
 * and the memberships table (imported by name, or created for a standalone deployment).
 */
export class StatefulStack extends Stack {
  /** The keys table: keys, grants, their events and index entries (PITR, deletion protection, a stream). */
  readonly keysTable: TableV2;
  /** The KMS HMAC_256 key every pepper version is derived from (retained; never rotated by KMS). */
  readonly pepperKey: Key;
  /** The memberships table: imported by `membershipsTableName`, or created. */
  readonly membershipsTable: ITableV2;
  /** Principals the key policy names (granted by ARN), and the statement naming them. */
  private readonly verifierArns: string[] = [];
  private verifierStatement?: PolicyStatement;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    this.keysTable = new TableV2(this, 'KeysTable', tableProps(KEYS_TABLE));

    // The logical id must never change: a new key would be a new pepper, and every key would fail.
    this.pepperKey = new Key(this, 'PepperKey', {
      description: 'HMAC key from which the API key digest pepper is derived (GenerateMac)',
      keySpec: KeySpec.HMAC_256,
      keyUsage: KeyUsage.GENERATE_VERIFY_MAC,
      removalPolicy: RemovalPolicy.RETAIN,
      policy: pepperKeyPolicy({
        administratorArns: props.settings.keyAdministratorArns,
        verifierArns: this.verifierArns,
      }),
    });
    Validations.of(this.pepperKey).acknowledge({
      id: 'AwsSolutions-KMS5',
      reason:
        'KMS does not rotate HMAC keys automatically; the pepper is rotated by raising the pepperVersion setting (docs/operations.md).',
    });

    this.membershipsTable = props.settings.membershipsTableName
      ? TableV2.fromTableName(this, 'MembershipsTable', props.settings.membershipsTableName)
      : new TableV2(this, 'MembershipsTable', tableProps(MEMBERSHIPS_TABLE));

    new CfnOutput(this, 'KeysTableName', { value: this.keysTable.tableName });
    new CfnOutput(this, 'PepperKeyArn', { value: this.pepperKey.keyArn });
  }

  /**
   * Lets `grantee` verify keys in-process (`createKeyVerifier`, `verifyMcpKey`): the reads of the
   * keys and memberships tables the verifier makes, its `last_used_at` update and
   * `kms:GenerateMac` on the pepper key, CDK style. A role or user created in this account is
   * tagged `svc-mcp-api-keys:verify` (which the key policy admits), so this stack never depends on
   * the grantee's. A principal of another account (or one imported by a literal ARN) is named in
   * the key policy and, across accounts, in both tables' resource-based policies; its own account
   * must allow the same calls (`verifierPolicyStatements`). docs/mcp-servers.md has examples.
   */
  grantVerify(grantee: IGrantable): Grant {
    return grantVerifyTo(
      {
        scope: this,
        keysTable: this.keysTable,
        membershipsTable: this.membershipsTable,
        pepperKeyArn: this.pepperKey.keyArn,
        admitToPepperKey: (principal, arns) => this.admitToPepperKey(principal, arns),
      },
      grantee,
    );
  }

  private admitToPepperKey(principal: IPrincipal, arns: string[]): void {
    if (!this.verifierStatement) {
      this.verifierStatement = verifierKeyStatement();
      this.verifierStatement.addPrincipals(principal);
      this.pepperKey.addToResourcePolicy(this.verifierStatement);
    } else {
      this.verifierStatement.addPrincipals(principal);
    }
    this.verifierArns.push(...arns);
  }
}
