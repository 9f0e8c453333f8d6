import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ToolCatalogue } from './access/tools.ts';
import type { PepperSource } from './keys/pepper.ts';
import type { KeyReader } from './keys/port.ts';
import { createKeyVerifier, type KeyUse, type VerifyResult } from './keys/verify.ts';
import { DynamoKeyReads } from './store/key-reads.ts';
import { DynamoMemberships } from './store/memberships-store.ts';
import { DynamoVerificationReads } from './store/verification-reads.ts';
import type { McpCall } from './usage/model.ts';
import type { UsageRecorder } from './usage/recorder.ts';

/** The DynamoDB side of a verifier, on a document client and a pepper source the caller owns. */
export interface DynamoVerifierParts {
  doc: DynamoDBDocumentClient;
  keysTableName: string;
  membershipsTableName: string;
  peppers: PepperSource;
  now: () => Date;
  /** The key reads to use. @default a `DynamoKeyReads` on `doc` */
  keys?: KeyReader;
  cacheSize?: number | undefined;
  /** The MCP server guarded: access tokens for another are refused. @default none */
  resource?: string | undefined;
  /** The MCP server's tool catalogue (contract §19). @default none */
  tools?: ToolCatalogue | undefined;
  onUseRecordError?: (err: unknown) => void;
  onUse?: ((use: KeyUse) => void) | undefined;
  usageRecorder?: UsageRecorder | undefined;
}

/**
 * The verification over the DynamoDB adapters; a failing call throws. The service's runtime uses
 * it as is (the key authorizer fails closed on a throw); `createMcpKeyVerifier` adds the rest.
 */
export function dynamoKeyVerifier(
  parts: DynamoVerifierParts,
): (rawKey: unknown, call?: McpCall) => Promise<VerifyResult> {
  const memberships = new DynamoMemberships(parts.doc, parts.membershipsTableName);
  const reads = new DynamoKeyReads(parts.doc, parts.keysTableName);
  return createKeyVerifier({
    keys: parts.keys ?? reads,
    // A limited credential's calls, counted across instances on its own item (contract §19).
    rates: reads,
    memberships,
    reads: new DynamoVerificationReads(parts.doc, parts.keysTableName, memberships),
    cacheSize: parts.cacheSize,
    resource: parts.resource,
    tools: parts.tools,
    peppers: parts.peppers,
    now: parts.now,
    ...(parts.onUseRecordError && { onUseRecordError: parts.onUseRecordError }),
    ...(parts.onUse && { onUse: parts.onUse }),
    usageRecorder: parts.usageRecorder,
  });
}
