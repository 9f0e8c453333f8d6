import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PersonDisabled } from '#lib/keys/port';
import type { LineageSlots } from '#lib/keys/rules';
import { conditionParams, itemIsNew, slotsHeldAsRead } from './conditions.ts';
import { SLOTS_SK, slotsPk } from './items.ts';

/**
 * A person's slot item (`USER#<user_id>`, `ACTIVE_KEYS`): the lineages holding a slot under the
 * active-key cap, each with its expiry (`active`), and the identity providers that disabled the
 * person (`disabled_by`, a map by issuer, contract §17). Every mint writes the item (a new
 * lineage's slot) or checks it (a rotation, a renewal) in its own transaction, on condition that
 * `disabled_by` is empty, so once a disabling is written nothing is minted for the person.
 */
export class DynamoSlotItems {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  private key(userId: string) {
    return { TableName: this.tableName, Key: { pk: slotsPk(userId), sk: SLOTS_SK } };
  }

  /** Creates the person's empty slot item, unless one exists (a concurrent first create made it). */
  async create(userId: string): Promise<void> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: slotsPk(userId), sk: SLOTS_SK, active: {} },
          ...conditionParams(itemIsNew),
        }),
      );
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  /** Releases the given slots, each only if still held with the same expiry. */
  async release(userId: string, slots: LineageSlots): Promise<void> {
    const lineages = Object.keys(slots);
    if (lineages.length === 0) return;
    const held = slotsHeldAsRead(slots);
    try {
      await this.doc.send(
        new UpdateCommand({
          ...this.key(userId),
          UpdateExpression: `REMOVE ${lineages.map((_, i) => `active.#l${i}`).join(', ')}`,
          ...conditionParams(held),
        }),
      );
    } catch (err) {
      // Another request changed the slots since they were read; the caller reads them again.
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  /** The lineages holding a slot, with their expiry (strongly consistent). */
  async held(userId: string): Promise<LineageSlots> {
    const found = await this.doc.send(new GetCommand({ ...this.key(userId), ConsistentRead: true }));
    return (found.Item?.active as LineageSlots | undefined) ?? {};
  }

  /**
   * Records `mark.issuer`'s disabling of the person (the earliest kept when it repeats). The item
   * and its maps are made first when missing: a nested path cannot be set in a map that is not
   * there.
   */
  async disable(userId: string, mark: PersonDisabled): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        ...this.key(userId),
        UpdateExpression:
          'SET active = if_not_exists(active, :empty), disabled_by = if_not_exists(disabled_by, :empty)',
        ExpressionAttributeValues: { ':empty': {} },
      }),
    );
    const { issuer, ...rest } = mark;
    await this.doc.send(
      new UpdateCommand({
        ...this.key(userId),
        UpdateExpression: 'SET disabled_by.#issuer = if_not_exists(disabled_by.#issuer, :mark)',
        ExpressionAttributeNames: { '#issuer': issuer },
        ExpressionAttributeValues: { ':mark': rest },
      }),
    );
  }

  /** Removes `issuer`'s disabling; whether the person is now enabled (no other IdP disabled them). */
  async enable(userId: string, issuer: string): Promise<boolean> {
    const updated = await this.doc
      .send(
        new UpdateCommand({
          ...this.key(userId),
          UpdateExpression: 'REMOVE disabled_by.#issuer',
          ConditionExpression: 'attribute_exists(disabled_by)',
          ExpressionAttributeNames: { '#issuer': issuer },
          ReturnValues: 'ALL_NEW',
        }),
      )
      .catch((err: unknown) => {
        // Never disabled: enabled already.
        if (err instanceof ConditionalCheckFailedException) return undefined;
        throw err;
      });
    return Object.keys((updated?.Attributes?.disabled_by as object | undefined) ?? {}).length === 0;
  }
}
