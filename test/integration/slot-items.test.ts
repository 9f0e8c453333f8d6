import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOTS_SK, slotsPk } from '#lib/store/items';
import { DynamoSlotItems } from '#lib/store/slot-items';
import { createTestTables, type TestTables } from '#test/support/dynamo';

/**
 * A person's slot item (lib/store/slot-items.ts, contract §5 and §17) on DynamoDB Local, called
 * directly: the slots it holds and releases only as read, and the identity providers' disablings
 * it records, keeps and lifts one IdP at a time.
 */

let tables: TestTables;
let slots: DynamoSlotItems;
const IDP_A = 'https://idp-a.example.com';
const IDP_B = 'https://idp-b.example.com';
const AT = '2026-12-06T08:00:00.000Z';
const LATER = '2026-12-07T08:00:00.000Z';

beforeAll(async () => {
  tables = await createTestTables();
  slots = new DynamoSlotItems(tables.doc, tables.keysTable);
});
afterAll(() => tables.drop());

const person = () => `user-${randomUUID()}`;
const itemOf = async (userId: string) =>
  (
    await tables.doc.send(
      new GetCommand({ TableName: tables.keysTable, Key: { pk: slotsPk(userId), sk: SLOTS_SK } }),
    )
  ).Item;
/** A slot item holding `active`, as a mint's transaction writes it. */
async function holding(active: Record<string, string>): Promise<string> {
  const userId = person();
  await tables.doc.send(
    new PutCommand({
      TableName: tables.keysTable,
      Item: { pk: slotsPk(userId), sk: SLOTS_SK, active },
    }),
  );
  return userId;
}

describe('the slots', () => {
  it('a person without a slot item holds none; the slots are read consistently', async () => {
    const reads: { ConsistentRead?: boolean }[] = [];
    const send = (command: { input: unknown }, ...rest: unknown[]) => {
      reads.push(command.input as (typeof reads)[number]);
      return (tables.doc.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    };
    const doc = new Proxy(tables.doc, {
      get: (target, name) => (name === 'send' ? send : Reflect.get(target, name, target)),
    });
    expect(await new DynamoSlotItems(doc, tables.keysTable).held(person())).toEqual({});
    expect(reads).toEqual([expect.objectContaining({ ConsistentRead: true })]);
  });

  it('create makes an empty item once, and a second create keeps what the first holds', async () => {
    const userId = await holding({ 'lineage-1': LATER });
    await slots.create(userId);
    expect(await slots.held(userId)).toEqual({ 'lineage-1': LATER });
    const fresh = person();
    await slots.create(fresh);
    expect(await itemOf(fresh)).toEqual({ pk: slotsPk(fresh), sk: SLOTS_SK, active: {} });
  });

  it('releases the slots given, each only if still held with the expiry read, and keeps the others', async () => {
    const userId = await holding({ a: AT, b: LATER, c: LATER });
    await slots.release(userId, { a: AT, b: LATER });
    expect(await slots.held(userId)).toEqual({ c: LATER });
    await slots.release(userId, { c: AT });
    expect(await slots.held(userId)).toEqual({ c: LATER });
  });

  it('releasing nothing writes nothing, even for a person without an item', async () => {
    const userId = person();
    await slots.release(userId, {});
    expect(await itemOf(userId)).toBeUndefined();
  });

  it('a failure that is no condition reaches the caller', async () => {
    const missing = new DynamoSlotItems(tables.doc, `missing-${randomUUID()}`);
    await expect(missing.create(person())).rejects.toThrow(/resource not found|non-existent table/i);
    await expect(missing.release(person(), { a: AT })).rejects.toThrow(
      /resource not found|non-existent table/i,
    );
    await expect(missing.enable(person(), IDP_A)).rejects.toThrow(/resource not found|non-existent table/i);
  });
});

describe('disablings', () => {
  it('are recorded by issuer on a person without an item, with an empty set of slots', async () => {
    const userId = person();
    await slots.disable(userId, { issuer: IDP_A, event: 'account-disabled', at: AT });
    expect(await itemOf(userId)).toEqual({
      pk: slotsPk(userId),
      sk: SLOTS_SK,
      active: {},
      disabled_by: { [IDP_A]: { event: 'account-disabled', at: AT } },
    });
  });

  it('keep the earliest of one IdP, add another IdP’s, and leave the slots held alone', async () => {
    const userId = await holding({ a: LATER });
    await slots.disable(userId, { issuer: IDP_A, event: 'account-disabled', at: AT });
    await slots.disable(userId, { issuer: IDP_A, event: 'account-purged', at: LATER });
    await slots.disable(userId, { issuer: IDP_B, event: 'account-purged', at: LATER });
    const item = await itemOf(userId);
    expect(item?.active).toEqual({ a: LATER });
    expect(item?.disabled_by).toEqual({
      [IDP_A]: { event: 'account-disabled', at: AT },
      [IDP_B]: { event: 'account-purged', at: LATER },
    });
  });

  it('are lifted one IdP at a time: enabled only once none is left', async () => {
    const userId = person();
    await slots.disable(userId, { issuer: IDP_A, event: 'account-disabled', at: AT });
    await slots.disable(userId, { issuer: IDP_B, event: 'account-disabled', at: AT });
    expect(await slots.enable(userId, IDP_A)).toBe(false);
    expect((await itemOf(userId))?.disabled_by).toEqual({ [IDP_B]: { event: 'account-disabled', at: AT } });
    expect(await slots.enable(userId, IDP_B)).toBe(true);
    expect((await itemOf(userId))?.disabled_by).toEqual({});
  });

  it('a person never disabled is enabled already, and enabling writes nothing', async () => {
    const userId = person();
    expect(await slots.enable(userId, IDP_A)).toBe(true);
    expect(await itemOf(userId)).toBeUndefined();
    const holder = await holding({ a: LATER });
    expect(await slots.enable(holder, IDP_A)).toBe(true);
    expect(await itemOf(holder)).toEqual({ pk: slotsPk(holder), sk: SLOTS_SK, active: { a: LATER } });
  });
});
