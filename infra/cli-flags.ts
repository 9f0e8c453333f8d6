import { parseArgs } from 'node:util';

/**
 * The `--name value` flags of an operator's script (`npm run smoke`, `npm run
 * backfill:workspace-index`): every one a string, none of them required here (each script says
 * which it needs). An unknown flag or a flag without its value is returned as the message to
 * print above the usage.
 */
export function stringFlags<const N extends string>(
  argv: string[],
  names: readonly N[],
): Partial<Record<N, string>> | string {
  try {
    const { values } = parseArgs({
      args: argv,
      options: Object.fromEntries(names.map((name) => [name, { type: 'string' as const }])),
      strict: true,
    });
    return values as Partial<Record<N, string>>;
  } catch (err) {
    return (err as Error).message;
  }
}
