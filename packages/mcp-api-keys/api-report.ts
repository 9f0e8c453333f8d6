import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import { distOf, ENTRY_POINTS, type EntryPoint, PACKAGE_DIR, packageDir, ROOT, TYPES } from './layout.ts';

/**
 * The packages' declarations (packages/mcp-api-keys/build.ts): `.d.ts` of every source the entry
 * points reach, rolled up into one per entry point by api-extractor, whose API report each
 * package commits in api/.
 */

/** `.d.ts` for every source the entry points reach, resolvable without the sources. */
export function emitDeclarations(): void {
  rmSync(TYPES, { recursive: true, force: true });
  const tsc = join(ROOT, 'node_modules/.bin/tsc');
  execFileSync(tsc, ['-p', join(PACKAGE_DIR, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  // The sources' subpath imports (`#lib/...`) become relative paths: a consumer has no `#lib`.
  for (const file of readdirSync(TYPES, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.d.ts')) continue;
    const path = join(TYPES, file);
    const text = readFileSync(path, 'utf8').replace(
      /(['"])#(lib|infra|functions)\/([^'"]+)\1/g,
      (_m, quote: string, folder: string, rest: string) => {
        const target = relative(dirname(path), join(TYPES, folder, `${rest}.ts`));
        return `${quote}${target.startsWith('.') ? target : `./${target}`}${quote}`;
      },
    );
    writeFileSync(path, text);
  }
}

export interface ApiCheck {
  entry: EntryPoint;
  /** False when the public API differs from the committed report. */
  matches: boolean;
  report: string;
  errors: number;
  warnings: number;
}

function extractorConfig(entry: EntryPoint, typesDir: string, distDir: string | undefined): ExtractorConfig {
  const dir = packageDir(ENTRY_POINTS[entry].package);
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: dir,
      mainEntryPointFilePath: join(typesDir, ENTRY_POINTS[entry].source.replace(/\.ts$/, '.d.ts')),
      compiler: { tsconfigFilePath: join(PACKAGE_DIR, 'tsconfig.api.json') },
      apiReport: {
        enabled: true,
        reportFileName: `${entry}.api.md`,
        reportFolder: join(dir, 'api'),
        reportTempFolder: join(typesDir, 'api'),
      },
      docModel: { enabled: false },
      dtsRollup: {
        enabled: true,
        publicTrimmedFilePath: join(distDir ?? join(dir, 'dist'), `${entry}.d.ts`),
      },
      tsdocMetadata: { enabled: false },
      messages: {
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          // Internal types a public signature mentions are listed in the report, which is reviewed.
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: join(dir, 'api-extractor.json'),
    packageJsonFullPath: join(dir, 'package.json'),
  });
}

/**
 * Rolls up each entry point's declarations into dist/<entry>.d.ts and compares its API with
 * api/<entry>.api.md (rewritten when `update`). One TypeScript program serves every entry point.
 */
export function extractApis(
  update: boolean,
  options: { typesDir?: string; distDir?: string; entries?: EntryPoint[] } = {},
): ApiCheck[] {
  const entries = options.entries ?? (Object.keys(ENTRY_POINTS) as EntryPoint[]);
  const configs = entries.map((entry) => extractorConfig(entry, options.typesDir ?? TYPES, options.distDir));
  const [first] = configs;
  if (!first) return [];
  const compilerState = CompilerState.create(first, {
    additionalEntryPoints: configs.map((c) => c.mainEntryPointFilePath),
  });
  return entries.map((entry, i) => {
    const config = configs[i] as ExtractorConfig;
    const result = Extractor.invoke(config, {
      localBuild: update,
      compilerState,
      messageCallback: quietInfo,
    });
    return {
      entry,
      matches: !result.apiReportChanged,
      report: join(packageDir(ENTRY_POINTS[entry].package), 'api', `${entry}.api.md`),
      errors: result.errorCount,
      warnings: result.warningCount,
    };
  });
}

/**
 * What a rollup leaves out: api-extractor drops `declare global`, so the elements entry's own block
 * (the tag names and events, in terms of names the entry exports) is appended to dist/elements.d.ts;
 * the React JSX types (packages/elements/elements-react.d.ts, which needs @types/react) ship beside it.
 */
export function addElementTypes(): void {
  const declared = readFileSync(join(TYPES, ENTRY_POINTS.elements.source.replace(/\.ts$/, '.d.ts')), 'utf8');
  const globals = /^declare global \{$[\s\S]*?^\}$/m.exec(declared)?.[0];
  if (!globals) throw new Error('web/elements.ts lost its `declare global` block');
  appendFileSync(join(distOf('elements'), 'elements.d.ts'), `\n${globals}\n`);
  copyFileSync(
    join(packageDir('elements'), 'elements-react.d.ts'),
    join(distOf('elements'), 'elements-react.d.ts'),
  );
}

/** api-extractor's chatter ("Analysis will use…") stays out of the output; warnings do not. */
const quietInfo = (message: { logLevel: string; handled: boolean }) => {
  if (message.logLevel === 'info' || message.logLevel === 'verbose') message.handled = true;
};
