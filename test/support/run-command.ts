import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Ran } from './packed.ts';

const exec = promisify(execFile);

/**
 * Runs a command in `cwd`; resolves with its exit code, its stdout and its output (stdout and
 * stderr together), never rejecting on a non-zero exit.
 */
export async function runCommand(
  cwd: string,
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Ran & { stdout: string }> {
  try {
    const { stdout, stderr } = await exec(command, args, {
      cwd,
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, output: `${stdout}${stderr}` };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === 'number' ? e.code : 1,
      stdout: e.stdout ?? '',
      output: `${e.stdout ?? ''}${e.stderr ?? ''}`,
    };
  }
}
