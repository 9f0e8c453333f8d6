import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { MANAGEMENT_ROUTES } from '#lib/routes/index';
import { STACK_CODES } from '#lib/routes/route-module';
import { ROUTE_CODES_FILE_ENV, recordedCodes } from './route-codes.ts';

/** Every test file of the suite, as vitest names them (relative, forward slashes). */
function allTestFiles(dir = 'test'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return allTestFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The codes declared but never produced: each route's own codes must be produced by a test of
 * that route; a code of the shared stack by a test of some route with that authentication (the
 * stack is one piece of code for all of them).
 */
export function missingCodes(seen: Set<string>): string[] {
  const missing: string[] = [];
  for (const module of MANAGEMENT_ROUTES) {
    for (const code of module.errors ?? [])
      if (!seen.has(`${module.name} ${code}`)) missing.push(`${module.method} ${module.path}: ${code}`);
  }
  for (const [auth, codes] of Object.entries(STACK_CODES)) {
    const routes = MANAGEMENT_ROUTES.filter((m) => m.auth === auth);
    if (routes.length === 0) continue;
    for (const code of codes)
      if (!routes.some((m) => seen.has(`${m.name} ${code}`)))
        missing.push(`any route with ${auth} authentication: ${code}`);
  }
  return missing;
}

/**
 * Fails a full, otherwise green run when a route declares an error code no test produced: the
 * declaration (OpenAPI, README) then promises an answer nobody has seen. Runs of some files only
 * are not judged.
 */
export default class RouteCodesReporter implements Reporter {
  private dir = '';
  private root = process.cwd();

  onInit(): void {
    this.dir = mkdtempSync(join(tmpdir(), 'route-codes-'));
    // Set before the workers start: they inherit it.
    process.env[ROUTE_CODES_FILE_ENV] = join(this.dir, 'codes.jsonl');
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const file = process.env[ROUTE_CODES_FILE_ENV] ?? '';
    try {
      const ran = new Set(modules.map((m) => relative(this.root, m.moduleId)));
      const full = allTestFiles().every((f) => ran.has(f));
      const green = modules.every((m) => m.ok());
      if (!full || !green) return;
      const missing = missingCodes(recordedCodes(file));
      if (missing.length === 0) return;
      console.error(
        `\nroute error codes declared but produced by no test (lib/routes/):\n  ${missing.join('\n  ')}\n`,
      );
      process.exitCode = 1;
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
