// openapi-typescript builds its output with the TypeScript 5 compiler API; this package's own
// dependencies pin that version, so it never meets the project's TypeScript 7 (which has no JS API).
export { astToString, default as openapiTS } from 'openapi-typescript';
