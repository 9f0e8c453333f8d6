import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '#lib/api-docs/openapi';

/**
 * docs/openapi.json passes two independent OpenAPI linters, with their configurations at the
 * root (`redocly.yaml`, `.spectral.yaml`: every rule turned off there says why). Both run
 * offline; Redocly's telemetry and update check are off.
 */
const run = (bin: string, args: string[]) => {
  const out = spawnSync(resolve('node_modules/.bin', bin), args, {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  return { status: out.status, text: `${out.stdout}${out.stderr}` };
};

describe('the OpenAPI document under the linters', () => {
  it("passes Redocly's recommended rules with no error and no warning", () => {
    const { status, text } = run('redocly', ['lint', OPENAPI_PATH, '--max-problems', '50']);
    expect(text).toContain('Your API description is valid');
    expect(text).not.toMatch(/You have \d+ warning/);
    expect(status, text).toBe(0);
  }, 60_000);

  it("passes Spectral's spectral:oas with no error and no warning", () => {
    const { status, text } = run('spectral', [
      'lint',
      OPENAPI_PATH,
      '-r',
      '.spectral.yaml',
      '--fail-severity=warn',
    ]);
    expect(text).toContain("No results with a severity of 'warn' or higher found!");
    expect(status, text).toBe(0);
  }, 60_000);
});
