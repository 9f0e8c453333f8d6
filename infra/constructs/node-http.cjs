/**
 * `node:http` for the functions' bundles (infra/constructs/bundling.ts aliases it here). Imported
 * as ESM (middy's utilities: `import { STATUS_CODES } from 'node:http'`), a built-in's module
 * facade reads every export, and `node:http`'s lazy ones load undici: 15-25 ms of a cold start.
 * Taken as a CommonJS value the built-in loads alone; `process.getBuiltinModule` names no import
 * path, so the alias does not apply to it and every importer gets the real module.
 */
module.exports = process.getBuiltinModule('node:http');
