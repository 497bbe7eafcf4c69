import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';

/** Where the code runs inside the sandbox: its working folder, HOME and TMPDIR. */
export const SANDBOX_DIR = '/sandbox';

/** What programs need from /etc: the linker cache, the alternatives links, users and time zone. */
const ETC_FILES = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/mime.types',
];
/** Only with `network: true`: name resolution and TLS roots. */
const ETC_NETWORK = [
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/ssl',
  '/etc/ca-certificates',
];
const TOP_LEVEL = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

let systemMounts: string[] | undefined;

/** /usr read-only, the merged-usr links (`/bin → usr/bin`) as links, and the /etc files above. */
function systemArguments(): string[] {
  if (systemMounts) return systemMounts;
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const path of TOP_LEVEL) {
    try {
      const info = lstatSync(path);
      if (info.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
      else if (info.isDirectory()) args.push('--ro-bind', path, path);
    } catch {
      // not on this system
    }
  }
  let pythonEtc: string[] = [];
  try {
    pythonEtc = readdirSync('/etc')
      .filter((name) => /^python3/.test(name))
      .map((name) => `/etc/${name}`);
  } catch {
    // no /etc to read
  }
  for (const path of [...ETC_FILES, ...pythonEtc]) if (existsSync(path)) args.push('--ro-bind', path, path);
  systemMounts = args;
  return args;
}

/** Flags of newer bubblewraps: `--size` (0.7) and `--disable-userns` (0.8). */
export interface BubblewrapFeatures {
  tmpfsSize: boolean;
  disableUserns: boolean;
}

export const ALL_FEATURES: Readonly<BubblewrapFeatures> = Object.freeze({
  tmpfsSize: true,
  disableUserns: true,
});

export interface BubblewrapOptions {
  /** A host folder bound read-write at /sandbox (persisted sessions); else a fresh tmpfs. */
  scratchHostDir?: string;
  /** Size of each tmpfs (/sandbox when fresh, /tmp). */
  scratchBytes: number;
  network: boolean;
  env: Readonly<Record<string, string>>;
  /** What this bubblewrap supports (default: everything); without them the sandbox is a bit weaker. */
  features?: BubblewrapFeatures;
}

/**
 * bubblewrap arguments: every namespace new (no network unless allowed), no capabilities even for
 * root, no nested user namespaces; the system read-only and minimal (no home, no /run, a few /etc
 * files); a writable scratch folder and /tmp; the root remounted read-only; a new session (no
 * terminal to inject into); killed with its parent; only the given environment.
 */
export function bubblewrapArguments(options: BubblewrapOptions): string[] {
  const features = options.features ?? ALL_FEATURES;
  const args = ['--unshare-all', '--unshare-user'];
  if (features.disableUserns) args.push('--disable-userns');
  if (options.network) args.push('--share-net');
  args.push('--cap-drop', 'ALL', '--die-with-parent', '--new-session', '--hostname', 'sandbox');
  args.push(...systemArguments());
  if (options.network)
    for (const path of ETC_NETWORK) if (existsSync(path)) args.push('--ro-bind', path, path);
  args.push('--proc', '/proc', '--dev', '/dev');
  const size = features.tmpfsSize ? ['--size', String(options.scratchBytes)] : [];
  args.push(...size, '--tmpfs', '/tmp');
  if (options.scratchHostDir) args.push('--bind', options.scratchHostDir, SANDBOX_DIR);
  else args.push(...size, '--tmpfs', SANDBOX_DIR);
  args.push('--remount-ro', '/', '--chdir', SANDBOX_DIR, '--clearenv');
  for (const [name, value] of Object.entries(options.env)) args.push('--setenv', name, value);
  args.push('--');
  return args;
}
