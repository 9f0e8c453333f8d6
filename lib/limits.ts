/**
 * Defaults and bounds of the service, written once. `lib/config.ts` (the functions'
 * environment), `infra/settings.ts` (CDK settings), the request schemas, the OpenAPI document and
 * the tests all read these.
 */

/** A deployment setting: its default and the range it may be set to. */
export interface SettingBounds {
  default: number;
  min: number;
  max: number;
}

/** Lifecycle limits a deployment may change (contract §5, §9). */
export const LIFECYCLE_SETTINGS = {
  /** Key lifetime when a create request names none. */
  defaultExpiryDays: { default: 30, min: 1, max: 3650 },
  /** The longest lifetime a key may be given. */
  maxExpiryDays: { default: 90, min: 1, max: 3650 },
  /** Active keys (lineages) per user. */
  maxActiveKeys: { default: 50, min: 1, max: 10_000 },
  /** Days a revoked or expired key (and its events) is kept before TTL removes it. */
  retentionDays: { default: 90, min: 1, max: 3650 },
  /** Days a credential's usage buckets are kept before TTL removes them (contract §18). */
  usageRetentionDays: { default: 90, min: 1, max: 400 },
} as const satisfies Record<string, SettingBounds>;

export type LifecycleSettingName = keyof typeof LIFECYCLE_SETTINGS;
export type Settings = Record<LifecycleSettingName, number>;

/** The lifecycle settings a deployment gets when it sets none. */
export const DEFAULT_SETTINGS: Settings = {
  defaultExpiryDays: LIFECYCLE_SETTINGS.defaultExpiryDays.default,
  maxExpiryDays: LIFECYCLE_SETTINGS.maxExpiryDays.default,
  maxActiveKeys: LIFECYCLE_SETTINGS.maxActiveKeys.default,
  retentionDays: LIFECYCLE_SETTINGS.retentionDays.default,
  usageRetentionDays: LIFECYCLE_SETTINGS.usageRetentionDays.default,
};

/** The environment variable that carries each lifecycle setting into a function. */
export const SETTING_ENV = {
  defaultExpiryDays: 'DEFAULT_EXPIRY_DAYS',
  maxExpiryDays: 'MAX_EXPIRY_DAYS',
  maxActiveKeys: 'MAX_ACTIVE_KEYS',
  retentionDays: 'RETENTION_DAYS',
  usageRetentionDays: 'USAGE_RETENTION_DAYS',
} as const satisfies Record<LifecycleSettingName, string>;

/** Request limits of the management API (contract §5). */
export const REQUEST_LIMITS = {
  /** Largest accepted request body. */
  maxBodyBytes: 16 * 1024,
  nameMaxLength: 100,
  maxWorkspaces: 50,
  /** List and events pages. */
  pageSize: { default: 50, min: 1, max: 100 },
} as const;

/** Leak reports (contract §11). */
export const LEAK_LIMITS = {
  /** Largest accepted body of a public report. */
  maxBodyBytes: 64 * 1024,
  /** Strings per public report. */
  maxKeys: 100,
  /** A reported string longer than this is not a key: refused rather than hashed. */
  maxStringLength: 1024,
  /** A public report is answered no sooner than this, whatever it held (no timing oracle). */
  minAnswerMs: 250,
  /** Route throttling of each leak route, per second and burst. */
  throttle: { rate: 5, burst: 10 },
} as const;

/**
 * GitHub's secret scanning partner reports (contract §11). GitHub states no maximum and asks
 * that a request with a large number of matches be answered without timing out; a match is
 * about 180 bytes, so 2 MiB holds some 10,000 of them (docs/decisions.md).
 */
export const GITHUB_LIMITS = {
  /** Largest accepted body of a GitHub report. */
  maxBodyBytes: 2 * 1024 * 1024,
  /** Matches per GitHub report. */
  maxMatches: 10_000,
} as const;

export const DAY_MS = 86_400_000;

/** Seconds a client is asked to wait after a 503 (management API and MCP endpoint alike). */
export const RETRY_AFTER_SECONDS = '2';
