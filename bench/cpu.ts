/** 1-2: verification CPU with the store in memory, and garbage rejected with no I/O. */
import { createHmac, randomUUID } from 'node:crypto';
import type { Role } from '#lib/access/scopes';
import { generateKey, KEY_PATTERN, keyHint, parseKey } from '#lib/keys/format';
import type { KeyRecord } from '#lib/keys/model';
import { digestKey, type PepperSource } from '#lib/keys/pepper';
import { createKeyVerifier } from '#lib/keys/verify';
import { opsPerSecond, record, syncOpsPerSecond } from './harness.ts';

export async function cpu(log: (line: string) => void) {
  log('1-2. verification CPU cost and garbage rejection (store in memory)');
  const pepperBytes = Buffer.alloc(32, 7);
  const peppers: PepperSource = { currentVersion: 1, pepper: async () => pepperBytes };
  const future = new Date(Date.now() + 3_600_000).toISOString();
  const makeRecord = async (workspaces: number) => {
    const { id, apiKey } = generateKey();
    const { digest } = await digestKey(peppers, apiKey);
    const workspaceIds = Array.from({ length: workspaces }, () => randomUUID());
    const record: KeyRecord = {
      id,
      user_id: 'bench',
      lineage_id: id,
      name: 'bench',
      workspace_ids: workspaceIds,
      scopes: ['svc.forms.read', 'svc.forms.write'],
      digest,
      pepper_version: 1,
      key_hint: keyHint(apiKey),
      created_at: new Date().toISOString(),
      expires_at: future,
      last_used_at: future, // never due: no last-use write in the loop
    };
    const roles = new Map<string, Role>(workspaceIds.map((w) => [w, 'editor']));
    return { apiKey, record, roles };
  };
  let storeCalls = 0;
  /** `warm`: with the one-request reads, so every verification after the first is warm. */
  const verifierFor = (k: Awaited<ReturnType<typeof makeRecord>>, warm = false) =>
    createKeyVerifier({
      ...(warm && {
        reads: {
          readMemberships: async () => {
            storeCalls++;
            return { roles: k.roles };
          },
          readKeyAndMemberships: async () => {
            storeCalls++;
            return { key: k.record, roles: k.roles };
          },
        },
      }),
      keys: {
        get: async (id) => {
          storeCalls++;
          return id === k.record.id ? k.record : undefined;
        },
        recordUse: async () => {
          storeCalls++;
          return false;
        },
      },
      memberships: {
        rolesFor: async () => {
          storeCalls++;
          return k.roles;
        },
      },
      peppers,
      now: () => new Date(),
    });

  const one = await makeRecord(1);
  const verify = verifierFor(one);
  if ((await verify(one.apiKey)).outcome !== 'valid') throw new Error('bench key does not verify');
  const bareHmac = await opsPerSecond(
    () => createHmac('sha256', pepperBytes).update(one.apiKey).digest(),
    1500,
  );
  const verifyRate = await opsPerSecond(() => verify(one.apiKey), 1500);
  record(
    'verify CPU (in-memory store)',
    1e6 / verifyRate,
    'µs/op',
    { name: 'bare HMAC-SHA256 µs/op', value: 1e6 / bareHmac },
    {
      text: '≤ 5x',
      met: (m) => (m.ratio ?? Infinity) <= 5,
    },
  );

  const warm = verifierFor(one, true);
  await warm(one.apiKey);
  const warmRate = await opsPerSecond(() => warm(one.apiKey), 1500);
  record('verify CPU, warm (in-memory store)', 1e6 / warmRate, 'µs/op', {
    name: 'cold µs/op',
    value: 1e6 / verifyRate,
  });

  const fifty = await makeRecord(50);
  const verify50 = verifierFor(fifty);
  const rate50 = await opsPerSecond(() => verify50(fifty.apiKey), 1500);
  record('verify CPU, key with 50 workspaces', 1e6 / rate50, 'µs/op', {
    name: '1 workspace µs/op',
    value: 1e6 / verifyRate,
  });

  // Garbage: random bodies (bad checksum), truncated, extended, wrong prefix, a flipped character.
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const garbage: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const good = generateKey().apiKey;
    const pos = 11 + (i % 71);
    const mutations = [
      `svc_mcp_v1_${Array.from({ length: 71 }, () => alphabet[Math.floor(Math.random() * 62)]).join('')}`,
      good.slice(0, -1),
      `${good}A`,
      `svc_mcp_v2_${good.slice(11)}`,
      good.slice(0, pos) + (good[pos] === 'A' ? 'B' : 'A') + good.slice(pos + 1),
    ];
    garbage.push(mutations[i % mutations.length] as string);
  }
  let g = 0;
  const regexRate = syncOpsPerSecond(() => KEY_PATTERN.test(garbage[g++ % garbage.length] as string), 1500);
  g = 0;
  const parseRate = syncOpsPerSecond(() => parseKey(garbage[g++ % garbage.length]), 1500);
  record(
    'garbage keys rejected (parse + checksum)',
    parseRate,
    'keys/s',
    { name: 'bare regex test keys/s', value: regexRate },
    {
      text: '≥ 0.5x regex',
      met: (m) => (m.ratio ?? 0) >= 0.5,
    },
  );
  storeCalls = 0;
  let valid = 0;
  for (const k of garbage) if ((await verify(k)).outcome !== 'malformed') valid++;
  record('store calls for 10,000 garbage keys', storeCalls, 'calls', undefined, {
    text: '= 0',
    met: (m) => m.value === 0 && valid === 0,
  });
}
