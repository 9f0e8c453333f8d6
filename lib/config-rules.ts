import * as z from 'zod/mini';
import { NOT_A_STRING, NOT_A_URL, PEPPER_VERSIONS, REQUIRED, readWholeNumber, tooShort } from './env.ts';
import type { SettingBounds } from './limits.ts';
import { toOrigin } from './origin.ts';

/**
 * The rules shared by the functions' environment (`lib/config.ts`) and the CDK settings
 * (`infra/settings.ts`): one parser, zod, in its small form (`zod/mini`, about 17 KB and 4 ms of
 * a cold start; the full form costs about 25 ms), so the key authorizer can load it too. The
 * checks themselves are in `env.ts`, which reads `verifyMcpKey`'s environment without zod.
 */

/** A string of at least `min` characters. */
export const text = (min: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? REQUIRED : NOT_A_STRING) })
    .check(z.minLength(min, tooShort(min)));

/** A URL, as `URL` parses it. */
export const url = () =>
  z
    .string({ error: (issue) => (issue.input === undefined ? REQUIRED : NOT_A_URL) })
    .check(z.refine((raw) => URL.canParse(raw), NOT_A_URL));

/**
 * A whole number in [min, max], from the environment or CDK context (a string) or props (a
 * number); `fallback` when absent. Each failure says which rule it broke.
 */
export const wholeNumber = (min: number, max: number, fallback: number) =>
  z._default(
    z.pipe(
      z.union([z.number(), z.string()], { error: 'must be a number' }),
      z.transform((raw, ctx) => {
        const read = readWholeNumber(raw, min, max);
        if ('value' in read) return read.value;
        ctx.issues.push({ code: 'custom', message: read.problem, input: raw });
        return z.NEVER;
      }),
    ),
    fallback,
  );

/** The pepper version new keys take (`PEPPER_VERSION`, `pepperVersion`). @default 1 */
export const pepperVersion = () =>
  wholeNumber(PEPPER_VERSIONS.min, PEPPER_VERSIONS.max, PEPPER_VERSIONS.default);

/** A lifecycle setting (lib/limits.ts): the same bounds and default wherever it is set. */
export const lifecycleSetting = (bounds: SettingBounds) =>
  wholeNumber(bounds.min, bounds.max, bounds.default);

/**
 * A list of origins exactly as a browser sends them (`scheme://host[:port]`), from a
 * comma-separated string or an array; empty when absent.
 */
export const originList = (what: string) =>
  z._default(
    z.pipe(
      z.union([z.string(), z.array(z.string())], { error: `must be ${what}` }),
      z.transform((raw, ctx) => {
        const items = (typeof raw === 'string' ? raw.split(',') : raw).map((o) => o.trim()).filter(Boolean);
        const bad = items.filter((o) => toOrigin(o) !== o);
        if (bad.length === 0) return items;
        ctx.issues.push({
          code: 'custom',
          message: `not an origin (scheme://host[:port]): ${bad.join(', ')}`,
          input: raw,
        });
        return z.NEVER;
      }),
    ),
    [],
  );

/** Every problem of a failed parse, one `name: message` each. */
export function problemsOf(error: z.core.$ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
}
