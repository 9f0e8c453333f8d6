/**
 * The environment read without a parser library: what every process reads (in Lambda or not, the
 * X-Ray trace, the log settings) and what `verifyMcpKey` reads, since the verifier's package
 * depends on the AWS SDK clients only (contract §16). The checks below are the rules
 * `config-rules.ts` gives zod, so a setting is refused with the same words wherever it is read.
 * With `config.ts`, the only modules that read `process.env`: the parsers default to it.
 */

export type Env = Record<string, string | undefined>;

export const REQUIRED = 'is required';
export const NOT_A_STRING = 'must be a string';
export const NOT_A_URL = 'must be a URL';
export const tooShort = (min: number) => `must have at least ${min} characters`;

/** What is wrong with a text of at least `min` characters; undefined when nothing is. */
export function textProblem(raw: unknown, min: number): string | undefined {
  if (raw === undefined) return REQUIRED;
  if (typeof raw !== 'string') return NOT_A_STRING;
  return raw.length < min ? tooShort(min) : undefined;
}

/** What is wrong with a URL (as `URL` parses it); undefined when nothing is. */
export function urlProblem(raw: unknown): string | undefined {
  if (raw === undefined) return REQUIRED;
  return typeof raw === 'string' && URL.canParse(raw) ? undefined : NOT_A_URL;
}

/** A whole number in [min, max] from a string (trimmed) or a number, or the rule it broke. */
export function readWholeNumber(
  raw: string | number,
  min: number,
  max: number,
): { value: number } | { problem: string } {
  const text = typeof raw === 'string' ? raw.trim() : String(raw);
  const n = Number(text);
  if (text === '' || Number.isNaN(n)) return { problem: 'must be a number' };
  if (!Number.isInteger(n)) return { problem: 'must be an integer' };
  if (n < min) return { problem: `must be at least ${min}` };
  if (n > max) return { problem: `must be at most ${max}` };
  return { value: n };
}

/** The pepper versions a deployment may name (`PEPPER_VERSION`, `pepperVersion`). */
export const PEPPER_VERSIONS = { min: 1, max: 1000, default: 1 } as const;

/** Where the pepper comes from: a KMS key (AWS) or local mode's directory. */
export type PepperConfig =
  | { kind: 'kms'; keyId: string; version: number }
  | { kind: 'local'; dir: string; version: number };

/** The pepper comes from a KMS key (AWS) or local mode's directory: one of them must be named. */
export const pepperProblems = (env: Env): string[] =>
  env.PEPPER_KMS_KEY_ID === undefined && env.PEPPER_DIR === undefined
    ? ['(env): either PEPPER_KMS_KEY_ID or PEPPER_DIR must be set']
    : [];

/** The pepper's source: the KMS key when one is named, else local mode's directory. */
export function pepperOf(e: {
  PEPPER_KMS_KEY_ID?: string;
  PEPPER_DIR?: string;
  PEPPER_VERSION: number;
}): PepperConfig {
  return e.PEPPER_KMS_KEY_ID
    ? { kind: 'kms', keyId: e.PEPPER_KMS_KEY_ID, version: e.PEPPER_VERSION }
    : { kind: 'local', dir: e.PEPPER_DIR as string, version: e.PEPPER_VERSION };
}

/** What `verifyMcpKey` reads: the tables, the pepper and where DynamoDB is; nothing else. */
export interface VerifierConfig {
  keysTableName: string;
  membershipsTableName: string;
  pepper: PepperConfig;
  dynamodbEndpoint: string | undefined;
  /** `AWS_REGION`, else `AWS_DEFAULT_REGION`; undefined when neither is set (no default). */
  region: string | undefined;
}

/** `name: problem` for each variable whose check found one (an absent optional one is fine). */
function problemsIn(
  env: Env,
  checks: Record<string, { optional: boolean; check: (raw: string) => string | undefined }>,
) {
  return Object.entries(checks).flatMap(([name, { optional, check }]) => {
    const raw = env[name];
    const problem = raw === undefined ? (optional ? undefined : REQUIRED) : check(raw);
    return problem === undefined ? [] : [`${name}: ${problem}`];
  });
}

/** The environment of an MCP server that verifies with `verifyMcpKey`; throws naming every problem. */
export function parseVerifierConfig(env: Env = process.env): VerifierConfig {
  const version =
    env.PEPPER_VERSION === undefined
      ? { value: PEPPER_VERSIONS.default }
      : readWholeNumber(env.PEPPER_VERSION, PEPPER_VERSIONS.min, PEPPER_VERSIONS.max);
  const problems = [
    ...problemsIn(env, {
      KEYS_TABLE_NAME: { optional: false, check: (raw) => textProblem(raw, 3) },
      MEMBERSHIPS_TABLE_NAME: { optional: false, check: (raw) => textProblem(raw, 3) },
      PEPPER_KMS_KEY_ID: { optional: true, check: (raw) => textProblem(raw, 1) },
      PEPPER_DIR: { optional: true, check: (raw) => textProblem(raw, 1) },
      PEPPER_VERSION: { optional: true, check: () => ('problem' in version ? version.problem : undefined) },
      DYNAMODB_ENDPOINT: { optional: true, check: urlProblem },
    }),
    ...pepperProblems(env),
  ];
  // A bad PEPPER_VERSION is among the problems; the second test narrows its type.
  if (problems.length > 0 || 'problem' in version)
    throw new Error(`invalid configuration: ${problems.join('; ')}`);
  return {
    keysTableName: env.KEYS_TABLE_NAME as string,
    membershipsTableName: env.MEMBERSHIPS_TABLE_NAME as string,
    pepper: pepperOf({ ...env, PEPPER_VERSION: version.value }),
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined,
  };
}

/** Logging and metrics settings, under the names AWS Lambda Powertools reads. */
export interface ObservabilityConfig {
  /** `AWS_LAMBDA_LOG_LEVEL`, else `POWERTOOLS_LOG_LEVEL`, else `LOG_LEVEL`; upper case. @default INFO */
  logLevel: string;
  /** `POWERTOOLS_SERVICE_NAME`, when set. */
  serviceName: string | undefined;
  /** `POWERTOOLS_METRICS_DISABLED`, else `POWERTOOLS_DEV`. */
  metricsDisabled: boolean;
  /** `POWERTOOLS_LOGGER_SAMPLE_RATE` (written on each line, as Powertools does). @default 0 */
  samplingRate: number;
  /** `POWERTOOLS_LOGGER_LOG_EVENT`: log each invocation's event (redacted). */
  logEvent: boolean;
}

const flag = (value: string | undefined) => value?.trim().toLowerCase() === 'true' || value?.trim() === '1';

/** Read once at cold start, as Powertools reads them. */
export function parseObservabilityConfig(env: Env = process.env): ObservabilityConfig {
  return {
    logLevel: (env.AWS_LAMBDA_LOG_LEVEL ?? env.POWERTOOLS_LOG_LEVEL ?? env.LOG_LEVEL ?? 'INFO').toUpperCase(),
    serviceName: env.POWERTOOLS_SERVICE_NAME || undefined,
    metricsDisabled:
      env.POWERTOOLS_METRICS_DISABLED !== undefined
        ? flag(env.POWERTOOLS_METRICS_DISABLED)
        : flag(env.POWERTOOLS_DEV),
    samplingRate: Number(env.POWERTOOLS_LOGGER_SAMPLE_RATE) || 0,
    logEvent: flag(env.POWERTOOLS_LOGGER_LOG_EVENT),
  };
}

/** The X-Ray trace of the current invocation (Lambda sets it per invocation). */
export const currentTraceId = (env: Env = process.env): string | undefined =>
  env._X_AMZN_TRACE_ID?.match(/Root=([^;]+)/)?.[1];

/** Whether the process runs in AWS Lambda (its runtime names the function). */
export const inLambda = (env: Env = process.env): boolean => env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
