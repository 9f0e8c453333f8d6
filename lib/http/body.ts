/**
 * The body of an API Gateway event as bytes: the one place that undoes its base64 encoding
 * (binary bodies arrive encoded). Undefined for a request without one.
 */
export function rawBodyOf(event: {
  body?: string | null | undefined;
  isBase64Encoded?: boolean;
}): Buffer<ArrayBuffer> | undefined {
  if (event.body === undefined || event.body === null) return undefined;
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}
