import { hostname } from 'node:os';
import { type AcquireLeaseOptions, DEFAULT_LEASE_WAIT_MS, SessionConflictError } from '@raf/core';
import { nodeCrypto } from '../lazy-builtins.js';
import { processAlive } from './process-start.js';

/** Who holds a lease: written into the lock file or row, read back by the next acquirer. */
export interface LeaseHolder {
  token: string;
  pid: number;
  host: string;
  /** Epoch ms; the holder renews it while it runs (other hosts cannot see its pid). */
  expiresAt: number;
}

/** How long a lease lasts without renewal; the holder renews it every third of that. */
export const LEASE_TTL_MS = 60_000;

export function newHolder(now = Date.now(), ttlMs = LEASE_TTL_MS): LeaseHolder {
  return {
    token: nodeCrypto().randomUUID(),
    pid: process.pid,
    host: hostname(),
    expiresAt: now + ttlMs,
  };
}

/** The lease duration asked for (`AcquireLeaseOptions.ttlMs`), checked: a bad one fails, never an endless lease. */
export function leaseTtl(options: AcquireLeaseOptions): number {
  const ttl = options.ttlMs ?? LEASE_TTL_MS;
  if (!Number.isFinite(ttl) || ttl <= 0)
    throw new TypeError(`acquireLease: ttlMs must be a positive number of milliseconds (got ${ttl})`);
  return ttl;
}

/**
 * What a fenced journal append throws once the turn's lease is gone (released, or expired and taken
 * by another turn): the turn stops, nothing more of it is written (CLI exit 5).
 */
export function leaseLost(id: string): SessionConflictError {
  return new SessionConflictError(
    id,
    'lease',
    `session ${id}: this turn no longer holds the session's lease (it expired and another turn took the session, or it was released): nothing more of this turn is written`,
  );
}

/**
 * Alive until its renewed expiry passes; on this host, also dead as soon as its pid is gone (no
 * wait for expiry after a kill -9). A pid that is alive past the expiry is another process that
 * reused it: the holder renews every third of the TTL while it runs, so it would not have lapsed.
 */
export function holderAlive(
  holder: Pick<LeaseHolder, 'pid' | 'host' | 'expiresAt'>,
  now = Date.now(),
): boolean {
  if (now >= holder.expiresAt) return false;
  return holder.host !== hostname() || processAlive(holder.pid);
}

/** Renews a held lease every third of its TTL without keeping the process alive. */
export function renewEvery(renew: () => Promise<void>, ttlMs = LEASE_TTL_MS): () => void {
  const timer = setInterval(() => void renew().catch(() => undefined), ttlMs / 3);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Tries `attempt` until it takes the lease or `waitMs` (default 30 s) passes; `wake` (a
 * notification) may cut a pause short. Out of time: `SessionConflictError` naming the session.
 */
export async function waitForLease<T>(
  id: string,
  options: AcquireLeaseOptions,
  attempt: () => Promise<T | undefined>,
  wake?: (signal: AbortSignal) => Promise<void>,
): Promise<T> {
  const waitMs = options.waitMs ?? DEFAULT_LEASE_WAIT_MS;
  const deadline = Date.now() + waitMs;
  let pause = 10;
  for (;;) {
    options.signal?.throwIfAborted();
    const lease = await attempt();
    if (lease !== undefined) return lease;
    const left = deadline - Date.now();
    if (left <= 0)
      throw new SessionConflictError(
        id,
        'lease',
        `session ${id} is in use by another turn (waited ${Math.round(waitMs / 1000)} s; --wait SECONDS waits longer)`,
      );
    await sleep(Math.min(pause, left), options.signal, wake);
    pause = Math.min(pause * 2, 200);
  }
}

async function sleep(
  ms: number,
  signal: AbortSignal | undefined,
  wake?: (signal: AbortSignal) => Promise<void>,
) {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await Promise.race([
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        stop.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      }),
      ...(wake ? [wake(stop.signal).catch(() => undefined)] : []),
    ]);
  } finally {
    stop.abort();
    signal?.removeEventListener('abort', onAbort);
  }
  signal?.throwIfAborted();
}
