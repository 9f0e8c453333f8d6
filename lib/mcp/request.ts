import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** The Web-standard Request an MCP transport expects, from an HTTP API payload 2.0 event. */
export function toRequest(event: APIGatewayProxyEventV2): Request {
  const host = event.headers.host ?? event.requestContext.domainName;
  const url = `https://${host}${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;
  const body =
    event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64')
        : event.body;
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers))
    if (value !== undefined) headers.set(name, value);
  const method = event.requestContext.http.method;
  return new Request(url, { method, headers, ...(body !== undefined && method !== 'GET' && { body }) });
}
