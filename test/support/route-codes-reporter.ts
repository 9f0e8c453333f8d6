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
 * The codes declared but never produced. A route's own codes must be produced by a test of that
 * route. A code of the shared stack comes from one middleware, the same code on every route that
 * runs it: a test of any such route produces it for all of them (`unauthorized` on routes with a
 * user token, step-up codes on step-up routes, `invalid_signature` on signature routes, the rest
 * on every route).
 */
export function missingCodes(seen: Set<string>): string[] {
  const missing: string[] = [];
  for (const module of MANAGEMENT_ROUTES) {
    for (const code of module.errors ?? [])
      if (!seen.has(`${module.name} ${code}`)) missing.push(`${module.method} ${module.path}: ${code}`);
  }
  const stackCodes = new Set(Object.values(STACK_CODES).flat());
  for (const code of stackCodes) {
    const routes = MANAGEMENT_ROUTES.filter((m) => STACK_CODES[m.auth].includes(code));
    if (!routes.some((m) => seen.has(`${m.name} ${code}`)))
      missing.push(`the stack (${routes.map((m) => m.name).join(', ')}): ${code}`);
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
