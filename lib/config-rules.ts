import * as z from 'zod/mini';
import type { SettingBounds } from './limits.ts';
import { toOrigin } from './origin.ts';

/**
 * The rules shared by the functions' environment (`lib/config.ts`) and the CDK settings
 * (`infra/settings.ts`): one parser, zod, in its small form (`zod/mini`, about 17 KB and 4 ms of
 * a cold start; the full form costs about 25 ms), so the key authorizer can load it too.
 */

const REQUIRED = 'is required';

/** A string of at least `min` characters. */
export const text = (min: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? REQUIRED : 'must be a string') })
    .check(z.minLength(min, `must have at least ${min} characters`));

/** A URL, as `URL` parses it. */
export const url = () =>
  z
    .string({ error: (issue) => (issue.input === undefined ? REQUIRED : 'must be a URL') })
    .check(z.refine((raw) => URL.canParse(raw), 'must be a URL'));

/**
 * A whole number in [min, max], from the environment or CDK context (a string) or props (a
 * number); `fallback` when absent. Each failure says which rule it broke.
 */
export const wholeNumber = (min: number, max: number, fallback: number) =>
  z._default(
    z.pipe(
      z.union([z.number(), z.string()], { error: 'must be a number' }),
      z.transform((raw, ctx) => {
        const text = typeof raw === 'string' ? raw.trim() : String(raw);
        const n = Number(text);
        const problem =
          text === '' || Number.isNaN(n)
            ? 'must be a number'
            : !Number.isInteger(n)
              ? 'must be an integer'
              : n < min
                ? `must be at least ${min}`
                : n > max
                  ? `must be at most ${max}`
                  : undefined;
        if (problem === undefined) return n;
        ctx.issues.push({ code: 'custom', message: problem, input: raw });
        return z.NEVER;
      }),
    ),
    fallback,
  );

/** The pepper version new keys take (`PEPPER_VERSION`, `pepperVersion`). @default 1 */
export const pepperVersion = () => wholeNumber(1, 1000, 1);

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
