import type { ApiOperation, SecurityScheme } from '../spec/read-operations.js';

/** What the connection supplies; which scheme carries it is the spec's business. */
export interface Credentials {
  apiKey?: string;
  username?: string;
  password?: string;
  /** The one security scheme the credentials belong to (`connection.scheme`). */
  scheme?: string;
  /** How to send the key when the spec declares no scheme (`connection.auth`). */
  explicit?: { type: 'bearer' | 'apiKey' | 'basic'; in?: 'header' | 'query'; name?: string };
}

export interface AppliedAuth {
  headers: Record<string, string>;
  query: Record<string, string>;
}

function basic(credentials: Credentials): string {
  return `Basic ${Buffer.from(`${credentials.username ?? ''}:${credentials.password ?? ''}`).toString('base64')}`;
}

function canSatisfy(
  name: string,
  schemes: Readonly<Record<string, SecurityScheme>>,
  credentials: Credentials,
): boolean {
  const scheme = schemes[name];
  if (!scheme || (credentials.scheme !== undefined && credentials.scheme !== name)) return false;
  if (scheme.type === 'http' && scheme.scheme === 'basic') return credentials.username !== undefined;
  return credentials.apiKey !== undefined;
}

function apply(scheme: SecurityScheme, credentials: Credentials, into: AppliedAuth): void {
  if (scheme.type === 'apiKey') {
    const name = scheme.name ?? 'X-API-Key';
    const key = credentials.apiKey as string;
    if (scheme.in === 'query') into.query[name] = key;
    else if (scheme.in === 'cookie') into.headers.cookie = `${name}=${encodeURIComponent(key)}`;
    else into.headers[name.toLowerCase()] = key;
  } else if (scheme.type === 'http' && scheme.scheme === 'basic') {
    into.headers.authorization = basic(credentials);
  } else {
    // http bearer, oauth2 and OpenID Connect all take the token as a bearer token.
    into.headers.authorization = `Bearer ${credentials.apiKey}`;
  }
}

/**
 * The headers and query parameters that authenticate one call: the first of the operation's
 * security alternatives the credentials can satisfy entirely. `connection.auth` wins over the spec.
 * Credentials are never sent to an operation that asks for none.
 */
export function authenticate(
  operation: ApiOperation,
  schemes: Readonly<Record<string, SecurityScheme>>,
  credentials: Credentials,
): AppliedAuth {
  const applied: AppliedAuth = { headers: {}, query: {} };
  const { explicit } = credentials;
  if (explicit) {
    if (explicit.type === 'basic') applied.headers.authorization = basic(credentials);
    else if (credentials.apiKey !== undefined) {
      if (explicit.type === 'bearer') applied.headers.authorization = `Bearer ${credentials.apiKey}`;
      else
        apply(
          { type: 'apiKey', in: explicit.in ?? 'header', name: explicit.name ?? 'X-API-Key' },
          credentials,
          applied,
        );
    }
    return applied;
  }
  for (const alternative of operation.security) {
    const names = Object.keys(alternative);
    if (names.length === 0) return applied; // `{}`: anonymous access is one of the options
    if (names.every((name) => canSatisfy(name, schemes, credentials))) {
      for (const name of names) apply(schemes[name] as SecurityScheme, credentials, applied);
      return applied;
    }
  }
  return applied;
}

/** Why a spec and a connection do not fit, for a build-time warning; undefined when they do. */
export function credentialsWarning(
  operations: readonly ApiOperation[],
  schemes: Readonly<Record<string, SecurityScheme>>,
  credentials: Credentials,
): string | undefined {
  const hasCredentials = credentials.apiKey !== undefined || credentials.username !== undefined;
  if (credentials.explicit) return undefined;
  const secured = operations.filter(
    (op) => op.security.length > 0 && !op.security.some((a) => Object.keys(a).length === 0),
  );
  if (hasCredentials && secured.length === 0 && Object.keys(schemes).length === 0) {
    return 'the connection has credentials but the spec declares no security scheme: set connection.auth ({type: bearer|apiKey|basic}) to send them';
  }
  const unmet = secured.filter(
    (op) => !op.security.some((a) => Object.keys(a).every((n) => canSatisfy(n, schemes, credentials))),
  );
  if (credentials.scheme !== undefined && !(credentials.scheme in schemes)) {
    return `connection.scheme "${credentials.scheme}" is not a security scheme of the spec (${Object.keys(schemes).join(', ') || 'it declares none'})`;
  }
  if (unmet.length === 0) return undefined;
  const names = unmet.slice(0, 3).map((op) => op.operationId ?? `${op.method} ${op.path}`);
  return `${unmet.length} operation(s) need credentials the connection does not supply (${names.join(', ')}${unmet.length > 3 ? ', …' : ''}): set connection.apiKey or username/password`;
}
