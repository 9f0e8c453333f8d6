/**
 * Where the published package keeps its prebuilt function bundles (`<dir>/<entry>/index.mjs`).
 * Undefined in this repository, where `ServiceFunction` bundles `functions/<entry>.ts` with
 * esbuild at synth. The package build (packages/mcp-api-keys/build.ts) replaces this module with
 * one that points next to the compiled constructs: a consumer's synth never bundles our sources.
 */
export const PREBUILT_FUNCTIONS_DIR: string | undefined = undefined;
