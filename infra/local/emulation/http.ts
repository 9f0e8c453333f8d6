import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';

/** The emulated API Gateway's payload limit, 10 MB as API Gateway's: a larger body is refused before any handler runs. */
export const GATEWAY_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

export function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= GATEWAY_MAX_PAYLOAD_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolveBody(size > GATEWAY_MAX_PAYLOAD_BYTES ? 'too_large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    ...(text && { 'content-type': 'application/json' }),
    ...headers,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Writes a Lambda proxy result back as HTTP, as API Gateway does (undefined headers dropped). */
export function sendResult(res: ServerResponse, result: APIGatewayProxyResultV2): void {
  if (
    typeof result === 'string' ||
    result === null ||
    typeof result !== 'object' ||
    !('statusCode' in result)
  ) {
    send(res, 200, typeof result === 'string' ? result : JSON.stringify(result));
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
  }
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body = result.body
    ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8')
    : Buffer.alloc(0);
  res.writeHead(result.statusCode ?? 200, { ...headers, 'content-length': body.length });
  res.end(body);
}

export function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A dev route's JSON body (an empty one is `{}`); undefined when it is not JSON. */
export function jsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8') || '{}') as unknown;
  } catch {
    return undefined;
  }
}
