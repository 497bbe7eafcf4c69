import {
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
} from 'node:fs';
import { comparePaths } from './path-order.js';
import { SHARED, type WalkItem, type WalkJob, type WalkReply } from './walker-protocol.js';
import { literalOf, scanText, type TextMatcher } from './walker-scan.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
const FILE_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** Linux names open descriptors as paths: `openat` semantics through Node's path-based API. */
const FD_PATHS = process.platform === 'linux' && existsSync('/proc/self/fd');

/** What a unit needs besides the job: how to match, and the memory shared with the pool. */
export interface UnitContext {
  shared: Int32Array;
  /** search: the matcher for the job's pattern. */
  matcher?: TextMatcher;
  /** search: `include`; find: the glob. Both get the relative path and the name. */
  accepts?: (relative: string, name: string) => boolean;
}

/** The first read of every file; the buffer is never smaller. */
const FIRST_READ = 1 << 16;
let buffer = Buffer.allocUnsafe(FIRST_READ);

/**
 * Walks one unit synchronously (in a worker, sync calls are the fastest and block no one). Every
 * folder below the unit is opened relative to its parent's descriptor with `O_NOFOLLOW`, and the
 * unit itself is checked by descriptor to be where it should be, so a folder swapped for a link
 * during the walk is never followed out of the tree.
 */
export function runUnit(job: WalkJob, context: UnitContext): WalkReply {
  const { shared } = context;
  const items: WalkItem[] = [];
  const held: number[] = [];
  let results = 0;
  let budget = job.budget;
  let cancelled = false;
  const literal = job.source && job.flags ? literalOf(job.source, job.flags) : undefined;
  const literalBytes = literal === undefined ? undefined : Buffer.from(literal);

  // A terminated worker's descriptors are closed by Node (`trackUnmanagedFds`).
  const hold = (fd: number) => held.push(fd);
  const release = () => closeSync(held.pop() as number);
  const stop = () => {
    if (Atomics.load(shared, SHARED.cancel) === job.id) cancelled = true;
    return cancelled || results >= job.limit;
  };

  /** Scans `at` (a path to open without following a link, or the unit's open descriptor). */
  const scan = (at: string | number, file: string) => {
    let fd: number;
    try {
      fd = typeof at === 'number' ? at : openSync(at, FILE_FLAGS);
    } catch {
      return;
    }
    if (typeof at !== 'number') hold(fd);
    try {
      const length = readFile(fd, job.maxFileBytes, job.probeBytes);
      if (length < 0) {
        items.push({ type: 'skipped', file, size: -length });
        return;
      }
      if (buffer.subarray(0, Math.min(length, job.probeBytes)).includes(0)) return;
      if (literalBytes && buffer.subarray(0, length).indexOf(literalBytes) < 0) return;
      const lines = scanText(
        buffer.toString('utf8', 0, length),
        context.matcher as TextMatcher,
        job.limit - results,
        job.lineChars,
        () => Atomics.add(shared, SHARED.progress, 1),
      );
      for (const { line, content } of lines) items.push({ type: 'match', file, line, content });
      results += lines.length;
    } catch {
      // unreadable (permissions, vanished, an I/O error): skipped like ripgrep does
    } finally {
      if (typeof at !== 'number') release();
      Atomics.add(shared, SHARED.progress, 1);
    }
  };

  const walk = (fd: number, path: string, relative: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(FD_PATHS ? `/proc/self/fd/${fd}` : path, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => comparePaths(a.name, b.name));
    for (const entry of entries) {
      if (stop()) return;
      const name = entry.name;
      const childRelative = relative === '' ? name : `${relative}/${name}`;
      const childPath = `${path}/${name}`;
      const at = FD_PATHS ? `/proc/self/fd/${fd}/${name}` : childPath;
      if (entry.isDirectory()) {
        if (depth + 1 >= job.maxDepth || !entersFolder(job, name)) continue;
        if (budget <= 0) {
          items.push({ type: 'folder', path: childPath, relative: childRelative, depth: depth + 1 });
          continue;
        }
        budget--;
        let child: number;
        try {
          child = openSync(at, DIR_FLAGS); // fails (ELOOP, ENOTDIR) if it became a link
        } catch {
          continue;
        }
        hold(child);
        try {
          walk(child, childPath, childRelative, depth + 1);
        } finally {
          release();
        }
      } else if (entry.isFile()) {
        if (context.accepts && !context.accepts(childRelative, name)) continue;
        budget--;
        if (job.kind === 'find') {
          items.push({ type: 'file', file: childPath });
          results++;
        } else {
          scan(at, childPath);
        }
      }
    }
  };

  const unit = openUnit(job.path);
  if (unit === undefined) return { id: job.id, items };
  hold(unit.fd);
  try {
    if (unit.directory) walk(unit.fd, job.path, job.relative, job.depth);
    // A file named directly is searched whatever `include` says, as ripgrep does.
    else if (job.kind === 'search') scan(unit.fd, job.path);
  } finally {
    while (held.length > 0) release();
  }
  return cancelled ? { id: job.id, items: [], cancelled } : { id: job.id, items };
}

function entersFolder(job: WalkJob, name: string): boolean {
  // Dot folders (.git, .cache, …) are skipped as `rg --glob '!.*/'` does; a glob may name one.
  return !name.startsWith('.') || (job.kind === 'find' && job.enterDotFolders === true);
}

/** Opens the unit without following a final link and checks, by descriptor, that it is `path`. */
function openUnit(path: string): { fd: number; directory: boolean } | undefined {
  let fd: number;
  try {
    fd = openSync(path, FILE_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const real = FD_PATHS ? readlinkSync(`/proc/self/fd/${fd}`) : realpathSync.native(path);
    const info = fstatSync(fd);
    if (real === path && (info.isDirectory() || info.isFile())) return { fd, directory: info.isDirectory() };
  } catch {
    // vanished or unreadable: nothing to walk
  }
  closeSync(fd);
  return undefined;
}

/**
 * Reads the open regular file into the worker's buffer and returns its length, or minus its size
 * when it is over the cap (reading no more than the cap). A small file takes one read and no
 * `fstat` (most files in a tree are small: the syscalls are the cost); a binary one is recognised
 * from its first chunk and not read further (the caller sees the NUL in the probe).
 */
function readFile(fd: number, maxBytes: number, probeBytes: number): number {
  let length = readSync(fd, buffer, 0, FIRST_READ, null);
  if (length < FIRST_READ) return length > maxBytes ? -length : length;
  const size = fstatSync(fd).size;
  if (size > maxBytes) return -size;
  if (buffer.subarray(0, probeBytes).includes(0)) return length;
  for (;;) {
    if (length === buffer.length) {
      if (length > maxBytes) return -length;
      const bigger = Buffer.allocUnsafe(Math.min(Math.max(size + 1, buffer.length * 2), maxBytes + 1));
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    const read = readSync(fd, buffer, length, buffer.length - length, null);
    if (read === 0) return length;
    length += read;
    if (length > maxBytes) return -length;
  }
}
