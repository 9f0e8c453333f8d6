import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `result` as JSON to `dir/file` for a test waiting on a background set-up (the synth, the
 * packing): written whole, then renamed, so a reader that polls for the file never sees half of it.
 */
export function writeResult(dir: string, file: string, result: unknown): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${file}.tmp`), JSON.stringify(result));
  renameSync(join(dir, `${file}.tmp`), join(dir, file));
}
