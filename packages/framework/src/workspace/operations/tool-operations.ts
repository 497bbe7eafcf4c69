/** What `lstat`/`stat` report, independent of the backend. */
export interface EntryInfo {
  kind: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  mtimeMs: number;
  birthtimeMs: number;
  readonly: boolean;
}

export interface DirectoryEntry {
  name: string;
  kind: 'file' | 'dir' | 'symlink' | 'unknown';
  size: number;
}

/**
 * File-system calls of the built-in tools. Every path given is already checked by the path guard
 * and free of symbolic links (`real`); implementations still refuse to follow a link that appears
 * after the check, so a swapped component can never redirect a write. Errors carry Node's `code`.
 */
export interface FsOperations {
  lstat(path: string): Promise<EntryInfo>;
  stat(path: string): Promise<EntryInfo>;
  realpath(path: string): Promise<string>;
  readlink(path: string): Promise<string>;
  /** Reads a regular file; refuses FIFOs and devices without blocking and files over `maxBytes`. */
  readFile(path: string, options: { maxBytes: number; signal: AbortSignal }): Promise<Buffer>;
  /** Replaces the file atomically (temporary file + rename), creating missing parent directories. */
  writeFile(path: string, data: Uint8Array | string, options: { signal: AbortSignal }): Promise<void>;
  /** `mkdir -p`; says whether anything was created. */
  mkdir(path: string): Promise<boolean>;
  /** Deletes recursively; a symbolic link is removed itself, never its target. */
  remove(path: string): Promise<void>;
  /** Renames; fails when `to` exists; creates `to`'s missing parents. */
  move(from: string, to: string): Promise<void>;
  /** Entries of one directory, without following links. */
  list(path: string): Promise<DirectoryEntry[]>;
}

/**
 * How to confine a command: the roots writable, the system's program folders and `readable`
 * read-only, nothing else visible; network off unless `network`. Every path is real (no links).
 */
export interface SandboxRequest {
  writableRoots: readonly string[];
  network: boolean;
  /** Paths outside the roots the command may read (`readableOutside`). */
  readable?: readonly string[];
  /** Paths inside the mounted trees kept read-only (`.git`). */
  readOnly?: readonly string[];
  /** Existing paths inside the mounted trees the command must not see (protected paths). */
  hidden?: readonly { path: string; directory: boolean }[];
}

export interface ProcessRequest {
  command: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** The whole environment of the command (default: a scrubbed copy of this process's, see `commandEnvironment`). */
  env?: Readonly<Record<string, string>>;
  /** Confine the command (bubblewrap when installed). */
  sandbox?: SandboxRequest;
}

/** Captured output: the first and last bytes, and the total, so memory stays bounded. */
export interface CapturedOutput {
  head: Buffer;
  tail: Buffer;
  totalBytes: number;
}

export interface ProcessResult {
  exitCode: number;
  stdout: CapturedOutput;
  stderr: CapturedOutput;
  timedOut: boolean;
  /** How the command was confined: `bubblewrap`, or `none`. */
  confinement: 'bubblewrap' | 'none';
}

export interface ProcessOperations {
  /** Whether `sandbox` requests can be honoured on this machine. */
  canConfine(): Promise<boolean>;
  run(request: ProcessRequest): Promise<ProcessResult>;
}

export interface SearchMatch {
  /** Absolute path of the file. */
  file: string;
  line: number;
  content: string;
}

export interface SearchRequest {
  pattern: string;
  directory: string;
  include?: string;
  caseInsensitive: boolean;
  maxMatches: number;
  signal: AbortSignal;
}

/** A file a search did not read because it is over the size cap. */
export interface SkippedFile {
  file: string;
  size: number;
  /** Why, for the model: `over 50 MB`. */
  reason?: string;
}

export interface SearchOutcome {
  matches: SearchMatch[];
  truncated: boolean;
  /** Files over the size cap, met before the last match (in path order). */
  skipped?: SkippedFile[];
  /** `ripgrep` or `walker`: which engine answered. */
  engine: string;
}

export interface FindRequest {
  pattern: string;
  directory: string;
  maxResults: number;
  signal: AbortSignal;
}

export interface SearchOperations {
  /**
   * The first `maxMatches` matching lines in path order (paths compared component by component,
   * names by code point; lines in order), the same on every call over the same tree.
   */
  search(request: SearchRequest): Promise<SearchOutcome>;
  find(request: FindRequest): Promise<{ results: string[]; truncated: boolean }>;
}

/** The backend of the built-in tools: swap it to run them against a sandbox or a test double. */
export interface ToolOperations {
  fs: FsOperations;
  process: ProcessOperations;
  search: SearchOperations;
}
