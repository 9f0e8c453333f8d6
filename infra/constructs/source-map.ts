/**
 * A function's source map, trimmed to the service's own code. Node parses the whole map when a
 * bundle loads with `--enable-source-maps`, and most of a bundle is its dependencies (the AWS
 * SDK, the MCP SDK, zod): their mappings cost every cold start (`npm run bench`) and map frames
 * nobody here debugs. After trimming, a stack frame in lib/ still names its file and line; a
 * frame inside a dependency shows the bundle's position.
 *
 * Plain Node (no imports of the project), so `ServiceFunction`'s bundling hook can run it:
 * `node infra/constructs/source-map.ts <file.map>`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { decode, encode } from '@jridgewell/sourcemap-codec';

interface SourceMapFile {
  sources: string[];
  mappings: string;
  names?: string[];
}

/** Drops every mapping into `node_modules/`; returns how many segments were kept and dropped. */
export function trimSourceMap(path: string): { kept: number; dropped: number } {
  const map = JSON.parse(readFileSync(path, 'utf8')) as SourceMapFile;
  const ours = map.sources.map((source) => !source.includes('node_modules/'));
  let kept = 0;
  let dropped = 0;
  const lines = decode(map.mappings).map((line) =>
    line.filter((segment) => {
      const source = segment[1];
      const keep = source !== undefined && ours[source] === true;
      if (keep) kept++;
      else dropped++;
      return keep;
    }),
  );
  writeFileSync(path, JSON.stringify({ ...map, mappings: encode(lines) }));
  return { kept, dropped };
}

if (import.meta.main) {
  for (const path of process.argv.slice(2)) trimSourceMap(path);
}
