import { z } from 'zod';
import { toolCatalogueProblems } from '#lib/access/tool-setting';
import type { McpTool } from '#lib/access/tools';
import { type IdentityProvider, identityProvidersProblems } from '#lib/identity/providers';

/** Rules of the deployment settings (infra/settings.ts) that more than one setting uses, or that need room. */

/** A comma-separated context value (`-c name=a,b`) or an array (props), trimmed, empties dropped. */
export const csv = <T extends z.ZodType>(item: T, what: string) =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean)
        : v,
    z.array(item, {
      error: (iss) => (iss.input === undefined ? `is required (${what})` : `must be ${what}`),
    }),
  );

/**
 * An https URL in its canonical form (`URL.href`: lower-case scheme and host, default port
 * dropped) without a fragment, user or password: what an OAuth setting names.
 */
export const httpsUrl = (name: string) =>
  z
    .url({ protocol: /^https$/, error: `${name} must be an https URL` })
    .refine((u) => {
      const url = new URL(u);
      return !url.hash && !url.username && !url.password;
    }, `${name} cannot hold a fragment (#), a user or a password`)
    .transform((u) => new URL(u).href);

/** An MCP server's canonical URL (RFC 8707 resource): https, a path, no query. */
export const resourceUrl = (name: string) =>
  httpsUrl(name).refine((u) => !new URL(u).search, `${name} cannot hold a query (?)`);

/**
 * A setting that is a list of objects: the list (props) or its JSON text (`-c name='[…]'`),
 * every problem `problemsOf` finds named after `shape` (what one entry looks like).
 */
const jsonListSetting = <T>(shape: string, problemsOf: (value: unknown) => string[]) =>
  z
    .preprocess((v) => {
      if (typeof v !== 'string') return v;
      try {
        return JSON.parse(v) as unknown;
      } catch {
        return v;
      }
    }, z.unknown())
    .superRefine((value, ctx) => {
      if (value === undefined) return;
      for (const problem of problemsOf(value))
        ctx.addIssue({ code: 'custom', message: `must be a list of ${shape}: ${problem}` });
    })
    .transform((value) => value as T[] | undefined);

/** The trusted identity providers (contract §17). */
export const identityProviders = jsonListSetting<IdentityProvider>(
  '{ issuer, jwksUri?, userClaim? }',
  identityProvidersProblems,
);

/** The MCP server's tool catalogue (contract §19). */
export const mcpTools = jsonListSetting<McpTool>(
  '{ name, scope, title?, destructive? }',
  toolCatalogueProblems,
);
