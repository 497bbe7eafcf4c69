import { lstatSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bubblewrapArguments, systemMountArguments } from './bubblewrap-arguments.js';

/** The `[flag, ...operands]` groups of an argument list, for order-free checks. */
function has(args: readonly string[], ...group: string[]): boolean {
  return args.some((_, i) => group.every((word, k) => args[i + k] === word));
}

describe.runIf(process.platform === 'linux')('bubblewrap arguments', () => {
  it('mounts the program folders as the host has them (merged /usr links become links)', async () => {
    const args = await systemMountArguments();
    for (const path of ['/bin', '/sbin', '/lib', '/lib64']) {
      const info = lstatSync(path, { throwIfNoEntry: false });
      if (info?.isSymbolicLink()) expect(has(args, '--symlink', readlinkSync(path), path), path).toBe(true);
      else if (info?.isDirectory()) expect(has(args, '--ro-bind', path, path), path).toBe(true);
      else expect(args).not.toContain(path);
    }
    expect(has(args, '--ro-bind', '/usr', '/usr')).toBe(true);
    expect(has(args, '--ro-bind', '/etc', '/etc')).toBe(true);
    if (lstatSync('/etc/shadow', { throwIfNoEntry: false }))
      expect(has(args, '--ro-bind', '/dev/null', '/etc/shadow')).toBe(true);
    for (const absent of ['/home', '/root', '/run', '/var', '/opt', '/srv', '/mnt', '/media'])
      expect(args).not.toContain(absent);
  });

  it('drops every capability with or without a user namespace, and keeps the network only when asked', () => {
    const sandbox = { writableRoots: ['/w'], network: false };
    const withUser = bubblewrapArguments({ cwd: '/w' }, sandbox, { systemMounts: [], userNamespace: true });
    const without = bubblewrapArguments({ cwd: '/w' }, sandbox, { systemMounts: [], userNamespace: false });
    for (const args of [withUser, without]) {
      expect(has(args, '--cap-drop', 'ALL')).toBe(true);
      for (const flag of [
        '--unshare-pid',
        '--unshare-ipc',
        '--unshare-net',
        '--die-with-parent',
        '--new-session',
      ])
        expect(args, flag).toContain(flag);
      expect(has(args, '--bind', '/w', '/w')).toBe(true);
      expect(has(args, '--tmpfs', '/tmp')).toBe(true);
    }
    expect(withUser).toContain('--unshare-user');
    expect(without).not.toContain('--unshare-user');
    const networked = bubblewrapArguments(
      { cwd: '/w' },
      { ...sandbox, network: true },
      { systemMounts: [], userNamespace: true },
    );
    expect(networked).not.toContain('--unshare-net');
  });

  it('masks and protects only paths inside what is mounted, after the mounts', () => {
    const args = bubblewrapArguments(
      { cwd: '/w' },
      {
        writableRoots: ['/w'],
        network: false,
        readable: ['/shared'],
        readOnly: ['/w/.git', '/elsewhere/.git'],
        hidden: [
          { path: '/w/.env', directory: false },
          { path: '/w/.raf', directory: true },
          { path: '/shared/.env', directory: false },
          { path: '/home/u/agent.yaml', directory: false },
        ],
      },
      { systemMounts: [], userNamespace: true },
    );
    expect(has(args, '--ro-bind', '/shared', '/shared')).toBe(true);
    expect(has(args, '--ro-bind', '/w/.git', '/w/.git')).toBe(true);
    expect(args).not.toContain('/elsewhere/.git');
    expect(has(args, '--ro-bind', '/dev/null', '/w/.env')).toBe(true);
    expect(has(args, '--tmpfs', '/w/.raf', '--remount-ro', '/w/.raf')).toBe(true);
    expect(has(args, '--ro-bind', '/dev/null', '/shared/.env')).toBe(true);
    expect(args).not.toContain('/home/u/agent.yaml');
    expect(args.indexOf('/w/.env')).toBeGreaterThan(args.lastIndexOf('--bind'));
  });
});
