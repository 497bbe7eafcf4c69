import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * The credential of a local server (`raf studio`, `raf mcp serve --http`): any process of the
 * machine can reach 127.0.0.1, so every request must carry a secret that only the one who started
 * the server was shown. 24 random bytes, URL-safe. Never begins with `-`: the token is passed on
 * command lines (`raf studio --token T`), where a leading `-` reads as an option.
 */
export function newLocalToken(): string {
  for (;;) {
    const token = randomBytes(24).toString('base64url');
    if (!token.startsWith('-')) return token;
  }
}

/** Compares in constant time (no timing oracle on the token's prefix). */
export function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The token of an `Authorization: Bearer …` header. The scheme's name is case-insensitive (RFC
 * 9110 §11.1: `bearer`, `BEARER` are the same scheme), the token itself is not.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = authorization?.match(/^bearer +(\S+)$/i);
  return match?.[1];
}

/**
 * The host as `listen` and `isIP` take it: `[::1]` (how an IPv6 address is written in a URL and
 * in `--host`) without its brackets; `listen('[::1]')` fails with ENOTFOUND.
 */
export function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

/** `127.0.0.1`, `::1`, `localhost`, any 127/8 address: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const bare = bareHost(host).toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '::ffff:127.0.0.1';
}
