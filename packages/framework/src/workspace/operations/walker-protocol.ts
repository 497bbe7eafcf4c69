/**
 * Messages between the walker pool and its workers. A job is one *unit*: a folder (or a file named
 * directly) whose sorted contents a worker walks depth-first until its budget is spent; folders
 * it did not enter come back as placeholders, in order, and become units of their own.
 */
export interface WalkJob {
  id: number;
  kind: 'search' | 'find';
  /** Absolute path of the unit, free of links: the worker checks the opened folder is there. */
  path: string;
  /** The unit's path relative to the searched folder ('' for the folder itself). */
  relative: string;
  depth: number;
  /** The searched folder: results are `root/relative`. */
  root: string;
  /** Files and folders to visit before deeper folders are handed back as placeholders. */
  budget: number;
  /** Results wanted from this unit at most (the caller's limit + 1, to know it truncated). */
  limit: number;
  maxDepth: number;
  maxFileBytes: number;
  probeBytes: number;
  lineChars: number;
  /** search: the pattern and flags (`m`, `mi`); run it on re2js (linear time) when `linear`. */
  source?: string;
  flags?: string;
  linear?: boolean;
  /** search: a glob on the name (or on the relative path when it has a `/`). */
  include?: string;
  /** find: the glob, matched against the relative path. */
  glob?: string;
  /** find: whether folders whose name starts with `.` can hold a match. */
  enterDotFolders?: boolean;
}

export type WalkItem =
  | { type: 'match'; file: string; line: number; content: string }
  | { type: 'file'; file: string }
  | { type: 'skipped'; file: string; size: number }
  | { type: 'folder'; path: string; relative: string; depth: number };

export interface WalkReply {
  id: number;
  items: WalkItem[];
  /** The unit stopped early because the pool asked (its results are not needed any more). */
  cancelled?: boolean;
  error?: string;
}

/**
 * Layout of the Int32Array each worker shares with the pool: a progress counter (bumped after
 * every file and regex run, so a stuck regex is visible) and the id of a job to give up.
 */
export const SHARED = { progress: 0, cancel: 1, length: 2 } as const;
