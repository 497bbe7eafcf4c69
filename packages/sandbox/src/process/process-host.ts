import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { ALL_FEATURES, type BubblewrapFeatures, bubblewrapArguments } from './bubblewrap-args.js';

/** The user a root host runs code as (nobody): root ignores the process-count limit. */
export const UNPRIVILEGED = Object.freeze({ uid: 65534, gid: 65534 });

/** What this machine offers the process backend; found once per PATH. */
export interface ProcessHost {
  /** bubblewrap, when installed and able to create its namespaces here. */
  bwrap?: string;
  /** The newer bubblewrap flags this one supports. */
  bwrapFeatures?: BubblewrapFeatures;
  prlimit?: string;
  bash?: string;
  /** `bash` or `sh`: runs `language: shell` and, without prlimit, sets the limits with `ulimit`. */
  shell?: string;
  python?: string;
  setpriv?: string;
  /** Set when the host runs as root and can drop to an unprivileged user for the code. */
  dropTo?: { uid: number; gid: number };
  /** Problems worth a warning (limits that cannot be enforced here). */
  notes: string[];
}

/** Folders bubblewrap mounts read-only: an interpreter elsewhere (pyenv, nvm) is not visible inside. */
export const SYSTEM_DIRS = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/'];
const isSystem = (path: string) => SYSTEM_DIRS.some((dir) => path.startsWith(dir));

async function executables(name: string, pathEnv: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      if (!(await stat(candidate)).isFile()) continue;
      found.push(await realpath(candidate));
    } catch {
      // not here
    }
  }
  return found;
}

/** The first program of that name on PATH, preferring one in a system folder (visible in the sandbox). */
async function which(name: string, pathEnv: string): Promise<string | undefined> {
  const all = await executables(name, pathEnv);
  return all.find(isSystem) ?? all[0];
}

function exitCode(file: string, args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: 'ignore' });
    child.once('error', () => resolve(null));
    child.once('close', (code) => resolve(code));
  });
}

/** `setpriv --reuid … --` when the code must run as another user; empty otherwise. */
export function dropArguments(host: ProcessHost): string[] {
  if (!host.dropTo || !host.setpriv) return [];
  const { uid, gid } = host.dropTo;
  return [host.setpriv, `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'];
}

async function probeBubblewrap(
  host: ProcessHost,
  bwrap: string,
  shell: string,
  features: BubblewrapFeatures,
): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  const [file, ...args] = [
    ...dropArguments(host),
    bwrap,
    ...bubblewrapArguments({ scratchBytes: 1024 * 1024, network: false, env: {}, features }),
    shell,
    '-c',
    ':',
  ];
  return (await exitCode(file as string, args)) === 0;
}

const OLDER: readonly BubblewrapFeatures[] = [
  { tmpfsSize: true, disableUserns: false }, // bubblewrap 0.7
  { tmpfsSize: false, disableUserns: false }, // before 0.7
];

/** Which flag set this bubblewrap runs with, newest first; undefined when it cannot run here. */
async function bubblewrapFeatures(
  host: ProcessHost,
  bwrap: string,
  shell: string,
): Promise<BubblewrapFeatures | undefined> {
  for (const features of [ALL_FEATURES, ...OLDER])
    if (await probeBubblewrap(host, bwrap, shell, features)) return features;
  return undefined;
}

const hosts = new Map<string, Promise<ProcessHost>>();

async function detect(pathEnv: string): Promise<ProcessHost> {
  const [bwrap, prlimit, bash, sh, python, setpriv] = await Promise.all(
    ['bwrap', 'prlimit', 'bash', 'sh', 'python3', 'setpriv'].map((name) => which(name, pathEnv)),
  );
  const host: ProcessHost = { notes: [] };
  if (prlimit) host.prlimit = prlimit;
  if (bash) host.bash = bash;
  const shell = bash ?? sh;
  if (shell) host.shell = shell;
  if (python) host.python = python;
  const root = process.getuid?.() === 0;
  if (root && setpriv) {
    host.setpriv = setpriv;
    host.dropTo = { ...UNPRIVILEGED };
  }
  if (bwrap && shell) {
    let features = await bubblewrapFeatures(host, bwrap, shell);
    if (!features && host.dropTo) {
      // Some hosts forbid unprivileged user namespaces: bubblewrap still works as root.
      delete host.dropTo;
      features = await bubblewrapFeatures(host, bwrap, shell);
    }
    if (features) {
      host.bwrap = bwrap;
      host.bwrapFeatures = features;
      if (!features.tmpfsSize)
        host.notes.push('this bubblewrap has no --size: the scratch folders are not capped in size');
      if (!features.disableUserns)
        host.notes.push('this bubblewrap has no --disable-userns: code may create nested user namespaces');
    }
  }
  if (root && !host.dropTo)
    host.notes.push('the code runs as root: pids_limit is not enforced (root ignores RLIMIT_NPROC)');
  return host;
}

/** Finds bubblewrap, prlimit, setpriv, python3 and a shell on this PATH (cached per PATH). */
export function processHost(pathEnv = process.env.PATH ?? ''): Promise<ProcessHost> {
  let host = hosts.get(pathEnv);
  if (!host) {
    host = detect(pathEnv);
    hosts.set(pathEnv, host);
  }
  return host;
}
