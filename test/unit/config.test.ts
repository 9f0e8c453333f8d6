import { describe, expect, it } from 'vitest';
import { parseConfig } from '#lib/config';
import { parseVerifierConfig } from '#lib/env';

const BASE = { KEYS_TABLE_NAME: 'keys', MEMBERSHIPS_TABLE_NAME: 'members' };

describe('configuration', () => {
  it('fails at cold start naming every missing or bad setting', () => {
    expect(() => parseConfig({})).toThrow(
      /KEYS_TABLE_NAME: is required; MEMBERSHIPS_TABLE_NAME: is required/,
    );
    expect(() => parseConfig({ ...BASE, PEPPER_DIR: '/p', MAX_ACTIVE_KEYS: '100000' })).toThrow(
      /MAX_ACTIVE_KEYS: must be at most 10000/,
    );
    expect(() => parseConfig(BASE)).toThrow(/either PEPPER_KMS_KEY_ID or PEPPER_DIR/);
    expect(() => parseConfig({ ...BASE, PEPPER_DIR: '/tmp/p', MAX_EXPIRY_DAYS: '0' })).toThrow(
      /MAX_EXPIRY_DAYS/,
    );
    expect(() => parseConfig({ ...BASE, PEPPER_DIR: '/tmp/p', DEFAULT_EXPIRY_DAYS: '100' })).toThrow(
      /DEFAULT_EXPIRY_DAYS must not exceed MAX_EXPIRY_DAYS/,
    );
  });

  it('refuses what is not a URL or an integer, with the variable named', () => {
    const base = { ...BASE, PEPPER_DIR: '/p' };
    expect(() => parseConfig({ ...base, DYNAMODB_ENDPOINT: 'not a url' })).toThrow(
      /DYNAMODB_ENDPOINT: must be a URL/,
    );
    expect(() => parseConfig({ ...base, PEPPER_VERSION: '1.5' })).toThrow(
      /PEPPER_VERSION: must be an integer/,
    );
    expect(() => parseConfig({ ...base, RETENTION_DAYS: 'soon' })).toThrow(
      /RETENTION_DAYS: must be a number/,
    );
    expect(() => parseConfig({ ...base, KEYS_TABLE_NAME: 'k' })).toThrow(
      /KEYS_TABLE_NAME: must have at least 3 characters/,
    );
    expect(parseConfig({ ...base, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).dynamodbEndpoint).toBe(
      'http://127.0.0.1:8000',
    );
  });

  it('applies the contract defaults and prefers the KMS pepper', () => {
    const config = parseConfig({ ...BASE, PEPPER_KMS_KEY_ID: 'arn:aws:kms:k', PEPPER_DIR: '/ignored' });
    expect(config.pepper).toEqual({ kind: 'kms', keyId: 'arn:aws:kms:k', version: 1 });
    expect(config.settings).toEqual({
      defaultExpiryDays: 30,
      maxExpiryDays: 90,
      maxActiveKeys: 50,
      retentionDays: 90,
      usageRetentionDays: 90,
    });
    expect(parseConfig({ ...BASE, PEPPER_DIR: '/p', MAX_ACTIVE_KEYS: '5' }).settings.maxActiveKeys).toBe(5);
  });
});

describe('verifyMcpKey’s environment, read without zod', () => {
  const thrown = (parse: () => unknown) => {
    try {
      parse();
    } catch (err) {
      return (err as Error).message;
    }
    return 'nothing thrown';
  };

  it('is refused in the words of the functions’ configuration, every problem at once', () => {
    const env = { ...BASE, PEPPER_DIR: '/p' };
    for (const bad of [
      { KEYS_TABLE_NAME: 'k', MEMBERSHIPS_TABLE_NAME: undefined },
      { PEPPER_KMS_KEY_ID: '', PEPPER_DIR: '' },
      { PEPPER_DIR: undefined },
      { PEPPER_VERSION: '1.5', DYNAMODB_ENDPOINT: 'not a url' },
      { PEPPER_VERSION: ' ' },
      { PEPPER_VERSION: '0' },
      { PEPPER_VERSION: '1001' },
      { DYNAMODB_ENDPOINT: '' },
    ]) {
      const message = thrown(() => parseConfig({ ...env, ...bad }));
      expect(message, JSON.stringify(bad)).toMatch(/^invalid configuration: /);
      expect(
        thrown(() => parseVerifierConfig({ ...env, ...bad })),
        JSON.stringify(bad),
      ).toBe(message);
    }
    expect(thrown(() => parseVerifierConfig({}))).toBe(thrown(() => parseConfig({})));
  });

  it('takes the tables, the pepper (version 1 unless named, trimmed) and the region, guessing none', () => {
    expect(parseVerifierConfig({ ...BASE, PEPPER_DIR: '/p', PEPPER_VERSION: ' 7 ' })).toEqual({
      keysTableName: 'keys',
      membershipsTableName: 'members',
      pepper: { kind: 'local', dir: '/p', version: 7 },
      dynamodbEndpoint: undefined,
      region: undefined,
    });
    const kms = {
      ...BASE,
      PEPPER_KMS_KEY_ID: 'alias/p',
      PEPPER_DIR: '/ignored',
      AWS_DEFAULT_REGION: 'eu-west-1',
    };
    expect(parseVerifierConfig(kms).pepper).toEqual({ kind: 'kms', keyId: 'alias/p', version: 1 });
    expect(parseVerifierConfig(kms).region).toBe('eu-west-1');
    expect(parseVerifierConfig({ ...kms, AWS_REGION: 'us-east-2' }).region).toBe('us-east-2');
  });
});
