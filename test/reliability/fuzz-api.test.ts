import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '#lib/errors';
import { createKey } from '#lib/keys/lifecycle';
import { type CallOptions, loadApi, type Reply } from '#test/support/api';
import { createTestTables, type TestTables } from '#test/support/dynamo';
import { captureOutput } from '#test/support/logs';
import { SecretLedger } from '#test/support/secrets';
import { scale } from '#test/support/soak';

/**
 * Generated bad input against every endpoint: the answer is always a documented status (never
 * 5xx), every error body is problem+json, and no rejected request changes the table.
 */
const RUNS = scale(500, 12_500); // per endpoint: 2,500 cases in npm test, 62,500 in the soak (five endpoints)
let tables: TestTables;
let api: Awaited<ReturnType<typeof loadApi>>;
const output = captureOutput();
const secrets = new SecretLedger();
const bodies: string[] = [];
let victimKeyId: string;

beforeAll(async () => {
  tables = await createTestTables();
  api = loadApi(tables.runtime());
  // Someone else's key that no generated request may touch.
  const ws = randomUUID();
  await tables.setRole('victim', ws, 'owner');
  const victim = await createKey(api.runtime.service, {
    userId: 'victim',
    name: 'v',
    workspaceIds: [ws],
    scopes: ['svc.forms.read'],
  });
  victimKeyId = victim.metadata.id;
  secrets.add(victim.apiKey, (await api.runtime.service.keys.get(victimKeyId))?.digest);
});
afterAll(async () => {
  output.restore();
  await tables.drop();
});

const CODES = new Set(Object.keys(ERROR_CATALOG));

function assertWellFormed(reply: Reply, allowed: number[]) {
  expect(allowed, `status ${reply.status}: ${reply.raw.slice(0, 300)}`).toContain(reply.status);
  expect(reply.headers['x-request-id']).toBeTruthy();
  bodies.push(reply.raw);
  if (reply.status >= 400) {
    expect(reply.headers['content-type']).toBe('application/problem+json');
    expect(CODES.has(reply.body.code as string)).toBe(true);
    expect(reply.body).toMatchObject({
      status: reply.status,
      title: expect.any(String),
      detail: expect.any(String),
    });
    expect(ERROR_CATALOG[reply.body.code as keyof typeof ERROR_CATALOG].status).toBe(reply.status);
  }
}

// ---- generators
/** Every format character (Unicode Cf): bidirectional overrides and isolates, invisible ones, tags. */
const FORMAT_CHARACTERS = Array.from({ length: 0x110000 }, (_, cp) => cp)
  .filter((cp) => (cp < 0xd800 || cp > 0xdfff) && /\p{Cf}/u.test(String.fromCodePoint(cp)))
  .map((cp) => String.fromCodePoint(cp));
const formatCharacter = fc.constantFrom(...FORMAT_CHARACTERS);
const hugeString = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ minLength: 1000, maxLength: 20_000 }));
const weirdString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', '\u0000', '\u202e', '💥', 'svc.forms.read', '../../etc', '%00', 'null', '{}'),
  fc.tuple(fc.string(), formatCharacter, fc.string()).map((parts) => parts.join('')),
  hugeString,
);
const number = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1, 90, 91, 1e308, Number.MAX_SAFE_INTEGER, -0),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  leaf: fc.oneof(weirdString, number, fc.boolean(), fc.constant(null)),
  node: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 5 }),
    fc.dictionary(weirdString, tie('node'), { maxKeys: 5 }),
  ),
})).node;
const uuidOrJunk = fc.oneof(fc.uuid({ version: 4 }), weirdString);
const createBody = fc.record(
  {
    name: fc.oneof(weirdString, value),
    workspace_ids: fc.oneof(fc.array(uuidOrJunk, { maxLength: 60 }), value),
    scopes: fc.oneof(
      fc.array(
        fc.oneof(fc.constantFrom('svc.forms.read', 'svc.forms.write', 'svc.forms.generate'), weirdString),
      ),
      value,
    ),
    expires_in_days: number,
    extra: value,
  },
  { requiredKeys: [] },
);
const rawBody = fc.oneof(
  createBody.map((b) => JSON.stringify(b)),
  value.map((v) => JSON.stringify(v) ?? ''),
  weirdString,
  fc.constantFrom('{', '{"name": ', '[]', 'null', '{"__proto__": {"x": 1}}', '{"name":"a","name":"b"}'),
);
const contentType = fc.option(
  fc.oneof(
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/problem+json',
      'multipart/form-data',
    ),
    weirdString,
  ),
  { nil: null },
);
const claims = fc.record(
  {
    // Never the victim's own sub: the owner acting on their own key is not bad input.
    sub: fc
      .oneof(fc.constant('fuzzer'), weirdString, fc.string({ minLength: 257, maxLength: 300 }))
      .filter((s) => s !== 'victim'),
    email_verified: fc.oneof(fc.constantFrom(true, false, 'true', 'false', 'TRUE', '1', 1), weirdString),
    auth_time: fc.oneof(fc.constant(String(Math.floor(Date.now() / 1000))), number, weirdString),
  },
  { requiredKeys: [] },
);
const query = fc.dictionary(
  fc.oneof(fc.constantFrom('limit', 'cursor', 'status'), weirdString),
  weirdString,
  { maxKeys: 4 },
);
const request: fc.Arbitrary<CallOptions> = fc.record({
  caller: claims,
  rawBody: fc.option(rawBody, { nil: undefined }),
  contentType,
  query,
});

describe('bad input never causes a 5xx, a malformed error or a write', () => {
  let before: Record<string, unknown>[];
  beforeAll(async () => {
    before = await tables.scanKeys();
  });

  it(`create: ${RUNS} generated requests`, async () => {
    // The fuzzer is a member of nothing, so even a valid body stops at the workspace check.
    await fc.assert(
      fc.asyncProperty(request, async (opts) => {
        const reply = await api.create(opts);
        assertWellFormed(reply, [400, 401, 403, 409, 413, 415]);
      }),
      { numRuns: RUNS },
    );
  });

  it(
    `create: ${RUNS} names with a format character are refused on the name, other names pass it`,
    async () => {
      // A fresh caller with a valid body but for the name: only the name can be refused.
      const create = (name: string) =>
        api.create({
          caller: { sub: 'fuzzer', email_verified: 'true', auth_time: String(Math.floor(Date.now() / 1000)) },
          body: { name, workspace_ids: [randomUUID()], scopes: ['svc.forms.read'] },
        });
      const namePath = (reply: Reply) =>
        ((reply.body.errors ?? []) as { path: string }[]).some((e) => e.path === 'name');
      await fc.assert(
        fc.asyncProperty(
          fc.tuple(fc.string({ maxLength: 40 }), formatCharacter, fc.string({ maxLength: 40 })),
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
          async ([before, cf, after], plain) => {
            // A format character inside the name, whatever surrounds it: 400 on `name`.
            const bad = await create(`a${before}${cf}${after}z`);
            assertWellFormed(bad, [400]);
            expect(bad.body.code).toBe('validation_failed');
            expect(namePath(bad), bad.raw).toBe(true);
            // A name of printable graphemes passes the name rule (the fuzzer is a member of nothing).
            const clean = [...plain].filter((c) => !/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(c)).join('');
            if (clean.trim().length === 0 || clean.trim().length > 100) return;
            const good = await create(clean);
            assertWellFormed(good, [403]);
            expect(namePath(good)).toBe(false);
          },
        ),
        { numRuns: RUNS },
      );
    },
    scale(120_000, 600_000),
  ); // two requests a case, one reading memberships: slower in the soak

  it(`list: ${RUNS} generated requests`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async (opts) => {
        const reply = await api.list(opts);
        assertWellFormed(reply, [200, 400, 401, 413, 415]);
        // Every answer, a page or a problem: someone else's key never shows.
        expect(reply.raw).not.toContain(victimKeyId);
      }),
      // One well-formed request among the generated ones, so a page is always among the answers.
      { numRuns: RUNS, examples: [[{ caller: { sub: 'fuzzer' }, contentType: null, query: {} }]] },
    );
  });

  const pathId = fc.oneof(
    fc.uuid({ version: 4 }),
    weirdString,
    fc.constant(() => victimKeyId).map((f) => f()),
  );
  it(`rotate: ${RUNS} generated requests`, async () => {
    await fc.assert(
      fc.asyncProperty(pathId, request, async (id, opts) => {
        assertWellFormed(await api.rotate(id, opts), [400, 401, 403, 404, 413, 415]);
      }),
      { numRuns: RUNS },
    );
  });

  it(`revoke: ${RUNS} generated requests`, async () => {
    await fc.assert(
      fc.asyncProperty(pathId, request, async (id, opts) => {
        assertWellFormed(await api.revoke(id, opts), [400, 401, 404, 413, 415]);
      }),
      { numRuns: RUNS },
    );
  });

  it(`events: ${RUNS} generated requests`, async () => {
    await fc.assert(
      fc.asyncProperty(pathId, request, async (id, opts) => {
        const reply = await api.events(id, opts);
        assertWellFormed(reply, [400, 401, 404, 413, 415]);
      }),
      { numRuns: RUNS },
    );
  });

  // A well-formed report is answered no sooner than a fixed time, so fewer cases here.
  it(`leak reports: ${RUNS / 5} generated requests`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async (opts) => {
        const reply = await api.leakReport(opts);
        assertWellFormed(reply, [202, 400, 413, 415]);
        // The body is `{received}` and nothing else exactly when the report is accepted.
        expect(Object.keys(reply.body).join(',') === 'received').toBe(reply.status === 202);
      }),
      {
        numRuns: RUNS / 5,
        examples: [
          [{ caller: {}, rawBody: '{"keys":["not a key"]}', contentType: 'application/json', query: {} }],
        ],
      },
    );
  });

  it(`GitHub secret scanning: ${RUNS} generated requests (none signed)`, async () => {
    await fc.assert(
      fc.asyncProperty(request, async (opts) => {
        assertWellFormed(await api.githubReport(opts), [401, 413]);
      }),
      { numRuns: RUNS },
    );
  });

  it('left the table exactly as it was', async () => {
    expect(await tables.scanKeys()).toEqual(before);
  });

  it('leaked no key or digest into a body or a log line', () => {
    expect(secrets.leaksIn(bodies.join('\n'))).toEqual([]);
    expect(secrets.leaksIn(output.text())).toEqual([]);
  });
});
