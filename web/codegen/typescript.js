// The TypeScript 5 compiler API, for the checks that read the sources' syntax (the size rules of
// test/unit/architecture.test.ts); the project's TypeScript 7 has no JS API.
export { default } from 'typescript';
