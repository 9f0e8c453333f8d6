/** Measurement helpers: every figure is printed next to a baseline measured in the same run. */
export interface Measurement {
  name: string;
  value: number;
  unit: string;
  baseline: { name: string; value: number } | null;
  /** value / baseline.value */
  ratio: number | null;
  target: string | null;
  /** Whether the target is met; null when there is none. */
  met: boolean | null;
}

export const results: Measurement[] = [];

/**
 * `--smoke`: every section runs at a fiftieth of its length (durations and repeat counts), to
 * show that the bench still runs end to end (CI does, after the tests). Its figures are not
 * measurements and its targets are not judged.
 */
export const SMOKE = process.argv.includes('--smoke');

/** A duration in ms or a repeat count: as given, or a fiftieth of it (at least `least`) in a smoke run. */
export function scaled(n: number, least = 1): number {
  return SMOKE ? Math.max(least, Math.round(n / 50)) : n;
}

export function record(
  name: string,
  value: number,
  unit: string,
  baseline?: { name: string; value: number },
  target?: { text: string; met: (m: { value: number; ratio: number | null }) => boolean },
): Measurement {
  const ratio = baseline && baseline.value !== 0 ? value / baseline.value : null;
  const m: Measurement = {
    name,
    value,
    unit,
    baseline: baseline ?? null,
    ratio,
    target: target?.text ?? null,
    met: target ? target.met({ value, ratio }) : null,
  };
  results.push(m);
  return m;
}

/** Operations per second of a synchronous or async function, over `ms` after a warm-up. */
export async function opsPerSecond(fn: () => unknown, ms = 1000): Promise<number> {
  ms = scaled(ms);
  const warm = performance.now() + Math.min(300, ms / 3);
  while (performance.now() < warm) await fn();
  let n = 0;
  const start = performance.now();
  const end = start + ms;
  while (performance.now() < end) {
    for (let i = 0; i < 100; i++) await fn();
    n += 100;
  }
  return (n / (performance.now() - start)) * 1000;
}

/** Same for synchronous work, without awaiting (an await alone costs more than a regex test). */
export function syncOpsPerSecond(fn: () => unknown, ms = 1000): number {
  ms = scaled(ms);
  const warm = performance.now() + Math.min(300, ms / 3);
  while (performance.now() < warm) fn();
  let n = 0;
  const start = performance.now();
  const end = start + ms;
  while (performance.now() < end) {
    for (let i = 0; i < 1000; i++) fn();
    n += 1000;
  }
  return (n / (performance.now() - start)) * 1000;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Rate and latency percentiles of a closed loop. */
export interface LoopResult {
  rate: number;
  p50: number;
  p99: number;
}

/** Runs `fn` from `concurrency` workers until `ms` elapse; returns rate and latency percentiles. */
export async function closedLoop(
  fn: () => Promise<unknown>,
  concurrency: number,
  ms: number,
): Promise<LoopResult> {
  return (await interleavedClosedLoops({ fn }, concurrency, ms, 1)).fn;
}

/**
 * `closedLoop` for several workloads at once, taken in turn in `slices` slices each (8 s in 4
 * slices: 2 s of each workload, round after round), so that a slow spell of the machine falls on
 * every workload alike instead of on whichever ran last.
 */
export async function interleavedClosedLoops<K extends string>(
  fns: Record<K, () => Promise<unknown>>,
  concurrency: number,
  ms: number,
  slices: number,
): Promise<Record<K, LoopResult>> {
  ms = scaled(ms, slices);
  const names = Object.keys(fns) as K[];
  const runs = names.map((name) => ({ name, latencies: [] as number[], elapsed: 0 }));
  for (let slice = 0; slice < slices; slice++) {
    for (const run of runs) {
      const start = performance.now();
      const end = start + ms / slices;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() < end) {
            const t = performance.now();
            await fns[run.name]();
            run.latencies.push(performance.now() - t);
          }
        }),
      );
      run.elapsed += performance.now() - start;
    }
  }
  return Object.fromEntries(
    runs.map(({ name, latencies, elapsed }) => {
      latencies.sort((x, y) => x - y);
      const result: LoopResult = {
        rate: (latencies.length / elapsed) * 1000,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
      };
      return [name, result];
    }),
  ) as Record<K, LoopResult>;
}

export function printTable(rows: Measurement[]): void {
  const fmt = (n: number | null | undefined) =>
    n === null || n === undefined || Number.isNaN(n)
      ? '-'
      : n >= 100
        ? Math.round(n).toLocaleString('en-US')
        : n.toFixed(2);
  const lines = rows.map((m) => [
    m.name,
    `${fmt(m.value)} ${m.unit}`,
    m.baseline ? `${m.baseline.name}: ${fmt(m.baseline.value)}` : '-',
    m.ratio === null ? '-' : `${m.ratio.toFixed(2)}x`,
    m.target ? `${m.target} ${m.met ? 'ok' : 'MISSED'}` : '-',
  ]);
  const header = ['measurement', 'value', 'baseline (same run)', 'ratio', 'target'];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  console.log(row(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const l of lines) console.log(row(l));
}

/** Runs `fn` `n` times one after another; latency percentiles. */
export async function sequential(fn: () => Promise<unknown>, n: number) {
  n = scaled(n);
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * `sequential` for several workloads at once, one call of each in turn (`n` calls each), so that
 * a slow spell of the machine falls on every workload alike instead of on whichever ran last.
 */
export async function interleavedSequential<K extends string>(
  fns: Record<K, () => Promise<unknown>>,
  n: number,
): Promise<Record<K, { p50: number; p99: number }>> {
  n = scaled(n);
  const names = Object.keys(fns) as K[];
  const latencies = names.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    for (const [j, name] of names.entries()) {
      const t = performance.now();
      await fns[name]();
      latencies[j]?.push(performance.now() - t);
    }
  }
  return Object.fromEntries(
    names.map((name, j) => {
      const sorted = (latencies[j] ?? []).sort((a, b) => a - b);
      return [name, { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }];
    }),
  ) as Record<K, { p50: number; p99: number }>;
}
