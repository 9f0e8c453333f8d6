/** `npm run test:soak` sets SOAK=1: the same suites, sized up. */
export const SOAK = process.env.SOAK === '1';
export const scale = (normal: number, soak: number): number => (SOAK ? soak : normal);
