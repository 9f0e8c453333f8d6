/**
 * Recognises a dependency (DynamoDB, KMS, network) that failed or throttled after the SDK's own
 * retries. The error mapper answers these with 503 and Retry-After; anything else is a 500.
 */
const TRANSIENT_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'KMSInternalException',
  'DependencyTimeoutException',
  'KMSInvalidStateException',
  'KeyUnavailableException',
  'DisabledException',
]);

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND']);

export class DependencyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DependencyError';
  }
}

export function isDependencyFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err instanceof DependencyError) return true;
  if (TRANSIENT_NAMES.has(err.name)) return true;
  const meta = err as { $fault?: string; $retryable?: unknown; code?: string; $metadata?: unknown };
  if (meta.$metadata !== undefined && (meta.$fault === 'server' || meta.$retryable !== undefined))
    return true;
  if (meta.code && NETWORK_CODES.has(meta.code)) return true;
  return false;
}
