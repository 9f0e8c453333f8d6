import { setPriority } from 'node:os';

/**
 * The run's background work (the infra tier's synth, the package tier's build and installs) gives
 * way to the test files: its process runs at niceness 10, which everything it starts inherits, so
 * the files that run first (DynamoDB Local's start, Chromium, the local services) are not slowed
 * by work whose result is needed only minutes later. Raising one's own niceness needs no
 * privilege; where the platform refuses, the work runs as it would have.
 */
export function inBackground(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, 10);
  } catch {
    // Not allowed here: the work still runs, at the usual priority.
  }
}
