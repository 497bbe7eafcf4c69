import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { holderAlive, LEASE_TTL_MS, newHolder } from './lease-holder.js';

describe('whether a lease holder is alive', () => {
  const now = Date.now();

  it('on this host: alive while its pid runs and its lease is renewed', () => {
    expect(holderAlive(newHolder(now), now)).toBe(true);
  });

  it('on this host: dead once its pid is gone, without waiting for the expiry (kill -9)', async () => {
    const child = spawn('sleep', ['30']);
    await once(child, 'spawn');
    const holder = { pid: child.pid!, host: hostname(), expiresAt: now + LEASE_TTL_MS };
    expect(holderAlive(holder, now)).toBe(true);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(holderAlive(holder, now)).toBe(false);
  });

  it('on this host: dead past its expiry although the pid is alive (another process reused it)', () => {
    // A live pid (this process) on a lease nobody renewed: a holder renews every TTL / 3.
    const lapsed = { pid: process.pid, host: hostname(), expiresAt: now - 1 };
    expect(holderAlive(lapsed, now)).toBe(false);
  });

  it('on another host: alive until its expiry, whatever runs under that pid here', () => {
    const other = { pid: 999_999_999, host: `not-${hostname()}`, expiresAt: now + 1000 };
    expect(holderAlive(other, now)).toBe(true);
    expect(holderAlive(other, now + 1000)).toBe(false);
  });

  it('never reads a process group: a pid 0 record on this host is dead', () => {
    expect(holderAlive({ pid: 0, host: hostname(), expiresAt: now + 1000 }, now)).toBe(false);
  });
});
