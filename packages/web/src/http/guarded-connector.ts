import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { getErrorMessage } from '@raf/core';
import type { buildConnector } from 'undici';
import {
  type AllowEntry,
  hostAllowed,
  normalizeHost,
  parseAddress,
  refuseAddress,
  refuseHostName,
  refuseMetadata,
} from './address-policy.js';
import { WebRequestError } from './web-request-error.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Turns a host name into addresses; the guard checks every answer. Swap it in tests to make a
 * public-looking name resolve to 127.0.0.1, or to answer differently on each lookup.
 */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The operating system's resolver (`getaddrinfo`, so /etc/hosts counts). */
export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

export interface AddressGuard {
  allow: readonly AllowEntry[];
  resolver: HostResolver;
}

function blocked(origin: string, why: string): WebRequestError {
  return new WebRequestError(
    'blocked',
    `refused ${origin}: ${why} (the SSRF guard admits public addresses only; list trusted local hosts or ranges in allowPrivate)`,
    { url: origin },
  );
}

/**
 * Resolves a host and checks every answer; returns the one address to connect to. A name on the
 * allow list is trusted whatever it resolves to, except a cloud metadata address; otherwise one refused answer refuses the host
 * (a name with a public and a private answer must not get a second chance on retry).
 */
export async function resolveChecked(hostname: string, guard: AddressGuard, origin: string): Promise<string> {
  const host = normalizeHost(hostname);
  const literal = parseAddress(host);
  if (literal) {
    const why = refuseAddress(host, guard.allow);
    if (why) throw blocked(origin, why);
    return literal.toString();
  }
  const named = refuseHostName(host, guard.allow);
  if (named) throw blocked(origin, named);
  let answers: readonly ResolvedAddress[];
  try {
    answers = await guard.resolver(host);
  } catch (error) {
    throw new WebRequestError('network', `cannot resolve ${host}: ${getErrorMessage(error)}`, {
      url: origin,
      cause: error,
    });
  }
  // IPv4 first, as dns.lookup ordered answers before Node 17: one address is dialled, with no
  // fallback between families, and many machines have no IPv6 route.
  const first = answers.find((answer) => answer.family === 4) ?? answers[0];
  if (!first) throw new WebRequestError('network', `${host} has no address`, { url: origin });
  // A trusted name skips the range checks, never the metadata one: `wiki.intranet` in
  // allowPrivate must not open 169.254.169.254 when its DNS answer points there.
  const trusted = hostAllowed(host, guard.allow);
  for (const answer of answers) {
    const why = trusted
      ? refuseMetadata(answer.address, guard.allow)
      : refuseAddress(answer.address, guard.allow);
    if (why) throw blocked(origin, `${host} resolves to ${why}`);
  }
  return first.address;
}

/**
 * An undici connector that checks the address of every new connection right before it is opened,
 * and connects to exactly the address it checked: a DNS answer that changes between the check
 * and the connect (rebinding) never reaches the socket. Redirect hops open their own connections,
 * so each is checked too.
 */
export function guardedConnector(
  guard: AddressGuard,
  connectTimeoutMs: number,
  build: typeof buildConnector,
): buildConnector.connector {
  const connect = build({ timeout: connectTimeoutMs });
  return (options, callback) => {
    const origin = `${options.protocol}//${options.host ?? options.hostname}`;
    resolveChecked(options.hostname, guard, origin).then(
      (address) => {
        // TLS still verifies the certificate against the name, not the address.
        const name = normalizeHost(options.hostname);
        const servername = options.servername || (isIP(name) ? undefined : name);
        connect({ ...options, hostname: address, ...(servername && { servername }) }, callback);
      },
      (error: Error) => callback(error, null),
    );
  };
}
