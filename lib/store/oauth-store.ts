import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyEvent } from '#lib/events/model';
import type { KeyRecord } from '#lib/keys/model';
import type { InsertOutcome } from '#lib/keys/port';
import type { AuthorizationRequest, RegisteredClient } from '#lib/oauth/model';
import type { GrantTokens, GrantWidening, OAuthStore } from '#lib/oauth/port';
import { conditionParams, itemIsNew } from './conditions.ts';
import { KEY_SK, keyPk } from './key-item.ts';
import type { DynamoKeyStore } from './keys-store.ts';
import { clientKey, requestKey } from './oauth-items.ts';
import { widenGrant } from './oauth-widen.ts';

const epochSeconds = (iso: string | Date) => Math.floor(new Date(iso).getTime() / 1000);

const strip = <T>(item: Record<string, unknown> | undefined): T | undefined => {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, ttl: _ttl, ...rest } = item;
  return rest as T;
};

const conditionFailed = (err: unknown) => err instanceof ConditionalCheckFailedException;

export class DynamoOAuthStore implements OAuthStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly keys: DynamoKeyStore,
  ) {}

  async putRequest(request: AuthorizationRequest): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...request, ...requestKey(request.id), ttl: epochSeconds(request.expires_at) },
        ...conditionParams(itemIsNew),
      }),
    );
  }

  async getRequest(id: string): Promise<AuthorizationRequest | undefined> {
    const found = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: requestKey(id), ConsistentRead: true }),
    );
    return strip<AuthorizationRequest>(found.Item);
  }

  async claimRequest(id: string, userId: string): Promise<AuthorizationRequest | undefined> {
    try {
      const updated = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: requestKey(id),
          UpdateExpression: 'SET user_id = :user',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(user_id)',
          ExpressionAttributeValues: { ':user': userId },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return strip<AuthorizationRequest>(updated.Attributes);
    } catch (err) {
      if (!conditionFailed(err)) throw err;
      // Missing, or claimed already (by this user or another): the stored request tells which.
      return this.getRequest(id);
    }
  }

  approve(
    request: AuthorizationRequest,
    grant: KeyRecord,
    maxSlots: number,
    events: readonly KeyEvent[],
  ): Promise<InsertOutcome | { kind: 'already_decided' }> {
    return this.keys.insertWith(
      grant,
      maxSlots,
      events,
      [
        {
          Update: {
            TableName: this.tableName,
            Key: requestKey(request.id),
            UpdateExpression: 'SET decision = :approved',
            ConditionExpression:
              'attribute_exists(pk) AND user_id = :user AND attribute_not_exists(decision)',
            ExpressionAttributeValues: { ':approved': 'approved', ':user': grant.user_id },
          },
        },
      ],
      () => ({ kind: 'already_decided' as const }),
    );
  }

  widen(
    request: AuthorizationRequest,
    grant: KeyRecord,
    widening: GrantWidening,
    events: readonly KeyEvent[],
    now: Date,
  ): Promise<'widened' | 'already_decided' | 'grant_changed'> {
    return widenGrant(
      this.doc,
      { tableName: this.tableName, keys: this.keys },
      { request, grant, widening, events, now },
    );
  }

  async deny(request: AuthorizationRequest): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: requestKey(request.id),
          UpdateExpression: 'SET decision = :denied',
          ConditionExpression: 'attribute_exists(pk) AND user_id = :user AND attribute_not_exists(decision)',
          ExpressionAttributeValues: { ':denied': 'denied', ':user': request.user_id },
        }),
      );
      return true;
    } catch (err) {
      if (conditionFailed(err)) return false;
      throw err;
    }
  }

  async putClient(client: RegisteredClient, expiresAt: Date): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...client, ...clientKey(client.client_id), ttl: epochSeconds(expiresAt) },
        ...conditionParams(itemIsNew),
      }),
    );
  }

  async getClient(clientId: string): Promise<RegisteredClient | undefined> {
    const found = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: clientKey(clientId), ConsistentRead: true }),
    );
    return strip<RegisteredClient>(found.Item);
  }

  async keepClient(clientId: string, now: Date): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: clientKey(clientId),
          UpdateExpression: 'SET used_at = :now REMOVE #ttl',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used_at)',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':now': now.toISOString() },
        }),
      );
    } catch (err) {
      // Kept already (or gone, which the token exchange that follows does not depend on).
      if (!conditionFailed(err)) throw err;
    }
  }

  redeemCode(grant: KeyRecord, tokens: GrantTokens): Promise<boolean> {
    // Stryker disable next-line OptionalChaining: equivalent, a grant record always holds its grant details
    const code = grant.grant?.code;
    if (!code) return Promise.resolve(false);
    return this.setTokens(grant, tokens, {
      condition: '#g.code.digest = :code',
      values: { ':code': code.digest },
      also: 'SET #g.redeemed_code = :code REMOVE #g.code',
    });
  }

  replaceTokens(grant: KeyRecord, tokens: GrantTokens): Promise<boolean> {
    return this.setTokens(grant, tokens, {
      condition: '#g.refresh = :read_refresh',
      // Stryker disable next-line OptionalChaining: equivalent, a grant record always holds its grant details
      values: { ':read_refresh': grant.grant?.refresh },
    });
  }

  /** Sets the token digests on an unrevoked grant under `condition`; false when it failed. */
  private async setTokens(
    grant: KeyRecord,
    tokens: GrantTokens,
    extra: { condition: string; values: Record<string, unknown>; also?: string },
  ): Promise<boolean> {
    const set = ['#g.access = :access', '#g.refresh = :refresh'];
    const remove: string[] = [];
    const values: Record<string, unknown> = {
      ...extra.values,
      ':access': tokens.access,
      ':refresh': tokens.refresh,
    };
    if (tokens.previous_access) {
      set.push('#g.previous_access = :previous_access');
      values[':previous_access'] = tokens.previous_access;
    } else remove.push('#g.previous_access');
    if (tokens.replaced_refresh) {
      set.push('#g.replaced_refresh = :replaced');
      values[':replaced'] = tokens.replaced_refresh;
    }
    const [alsoSet, alsoRemove] = (extra.also ?? '').split(' REMOVE ');
    // Stryker disable next-line Regex: equivalent, `also` has `SET ` only at its start
    if (alsoSet) set.push(alsoSet.replace(/^SET /, ''));
    if (alsoRemove) remove.push(alsoRemove);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: keyPk(grant.id), sk: KEY_SK },
          UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
          ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(revoked_at) AND ${extra.condition}`,
          ExpressionAttributeNames: { '#g': 'grant' },
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (err) {
      if (conditionFailed(err)) return false;
      throw err;
    }
  }
}
