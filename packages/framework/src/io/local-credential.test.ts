import { describe, expect, it } from 'vitest';
import { bareHost, isLoopbackHost, newLocalToken } from './local-credential.js';

describe('hosts as servers bind them', () => {
  it('bareHost drops the brackets of an IPv6 address written as in a URL, and nothing else', () => {
    expect(bareHost('[::1]')).toBe('::1');
    expect(bareHost('::1')).toBe('::1');
    expect(bareHost('127.0.0.1')).toBe('127.0.0.1');
    expect(bareHost('[::1')).toBe('[::1');
  });

  it('isLoopbackHost takes only this machine, bracketed or not; a half-bracketed host is not loopback', () => {
    for (const host of [
      '127.0.0.1',
      '127.9.9.9',
      'localhost',
      'LOCALHOST',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1',
    ])
      expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: true });
    for (const host of ['0.0.0.0', '::', '[::]', '10.0.0.1', 'example.com', '[::1', '::1]'])
      expect({ host, loopback: isLoopbackHost(host) }).toEqual({ host, loopback: false });
  });
});

describe('newLocalToken', () => {
  it('is 32 URL-safe characters and never begins with `-` (it is passed as `--token T` on command lines)', () => {
    // One base64url token in 64 began with `-`; `raf studio --token -…` then read it as an option.
    const tokens = Array.from({ length: 4000 }, newLocalToken);
    for (const token of tokens) expect(token).toMatch(/^[\w][\w-]{31}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});
