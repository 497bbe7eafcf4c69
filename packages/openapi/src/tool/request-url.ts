import { ConfigError } from '@raf/core';

/**
 * The base URL an API's calls go to, checked once at build: an http(s) URL without credentials.
 * `where` names the field it came from, for the error.
 */
export function parseBaseUrl(value: string, where: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`kind: openapi ${where}: "${value}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(
      `kind: openapi ${where}: ${url.protocol} URLs are not called (http and https only)`,
    );
  if (url.username || url.password)
    throw new ConfigError(`kind: openapi ${where}: put credentials in connection, not in the URL`);
  url.hash = '';
  return url;
}

/**
 * A spec path is a path under the base URL: it starts with `/` (OpenAPI requires it). Anything
 * else (`@other-host:80/x`, `.evil.test/x`) would move the call when glued to the base as text.
 */
export function checkSpecPath(path: string, where: string): void {
  if (!path.startsWith('/') || path.startsWith('//'))
    throw new ConfigError(
      `kind: openapi: ${where} has the path ${JSON.stringify(path.slice(0, 100))}, which does not start with a single "/" (paths are relative to the server URL)`,
    );
}

/** Decodes percent-escapes until nothing changes (a few rounds), so `%252e` is seen as `.` too. */
function fullyDecoded(value: string): string {
  let current = value;
  for (let round = 0; round < 4; round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return current;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

/**
 * One path parameter as a path segment (or part of one). `/`, `?`, `#` and `%` are encoded;
 * values that are or decode to `.` or `..` (alone or between slashes) are refused: as a segment they would climb to
 * another route (`/users/{id}/profile` with `id: ".."` is `/profile`), and a URL parser treats
 * `%2e` as a dot, so encoding cannot make them safe. An empty value is refused too (`/users//x`).
 */
export function encodePathValue(value: string): string | { refused: string } {
  if (value === '') return { refused: 'is empty' };
  // A server that decodes `%2F` before routing would see `a/../b`: refuse any dot step inside.
  const steps = fullyDecoded(value).split(/[/\\]/);
  if (steps.some((step) => step.trim() === '.' || step.trim() === '..'))
    return { refused: `is ${JSON.stringify(value)}, which holds a relative path step ("." or "..")` };
  return encodeURIComponent(value);
}

/**
 * The URL of one call: the base URL's path, then the operation's (already filled) path, then the
 * base's query and the call's. The result stays at the base's origin and under its path, or the
 * reason it does not is returned: nothing (credentials least of all) is sent then.
 */
export function requestUrl(base: URL, path: string, query: URLSearchParams): URL | { refused: string } {
  const url = new URL(base.href);
  const basePath = base.pathname.replace(/\/+$/, '');
  // Assigning `pathname` keeps the authority: whatever the path holds, it cannot become a host.
  url.pathname = `${basePath}${path}`;
  for (const [name, value] of query) url.searchParams.append(name, value);
  if (url.origin !== base.origin)
    return { refused: `the call would go to ${url.origin}, not the API's origin ${base.origin}` };
  if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`))
    return { refused: `the path ${url.pathname} is outside the API's base path ${basePath || '/'}` };
  return url;
}
