import { describe, expect, it } from 'vitest';
import { bubblewrapArguments } from './bubblewrap-args.js';

describe('bubblewrapArguments', () => {
  const base = { scratchBytes: 4096, network: false, env: { PATH: '/usr/bin', HOME: '/sandbox' } };

  it('unshares everything, drops capabilities, mounts the system read-only and ends with the environment', () => {
    const args = bubblewrapArguments(base);
    expect(args.slice(0, 4)).toEqual(['--unshare-all', '--unshare-user', '--disable-userns', '--cap-drop']);
    expect(args).not.toContain('--share-net');
    expect(args.join(' ')).toContain('--ro-bind /usr /usr');
    expect(args.join(' ')).toContain('--size 4096 --tmpfs /tmp --size 4096 --tmpfs /sandbox');
    expect(args.join(' ')).toContain('--remount-ro / --chdir /sandbox --clearenv');
    expect(args.slice(-7)).toEqual(['--setenv', 'PATH', '/usr/bin', '--setenv', 'HOME', '/sandbox', '--']);
    const mounted = args.filter((_arg, i) => args[i - 1] === '--ro-bind' || args[i - 1] === '--bind');
    for (const hidden of ['/home', '/root', '/run', '/etc/shadow', '/var'])
      expect(mounted).not.toContain(hidden);
  });

  it('shares the network (and name resolution) only when allowed', () => {
    const args = bubblewrapArguments({ ...base, network: true });
    expect(args).toContain('--share-net');
  });

  it('binds a persisted scratch folder, and leaves out flags an older bubblewrap lacks', () => {
    const args = bubblewrapArguments({
      ...base,
      scratchHostDir: '/tmp/raf-sandbox-x',
      features: { tmpfsSize: false, disableUserns: false },
    });
    expect(args).not.toContain('--size');
    expect(args).not.toContain('--disable-userns');
    expect(args.join(' ')).toContain('--tmpfs /tmp --bind /tmp/raf-sandbox-x /sandbox');
  });
});
