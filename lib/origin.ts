/**
 * The one origin rule, for every origin list the service reads (CORS_ORIGINS and `corsOrigins`,
 * MCP_ALLOWED_ORIGINS and `mcpAllowedOrigins`): `http` or `https`, a host and an optional port,
 * nothing after them but an optional `/`. Answers the origin as browsers send it (`URL.origin`:
 * lower-case host, default port dropped), or undefined for anything else.
 */
export function toOrigin(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  // Stryker disable next-line Regex: equivalent for the `$`, a URL's protocol ends at its one colon
  if (!/^https?:$/.test(url.protocol)) return undefined;
  // Stryker disable next-line Regex: equivalent, dropping the first slash instead of the last leaves text exactly when the path is not `/`
  if (url.pathname.replace(/\/$/, '') || url.search || url.hash || url.username || url.password)
    return undefined;
  return url.origin;
}
