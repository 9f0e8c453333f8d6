import { startContext } from './context.ts';
import { governance } from './governance.ts';
import { printTable, results } from './harness.ts';
const ctx = await startContext();
try { await governance(ctx, console.error); } finally { await ctx.local.stop(); }
printTable(results);
