import type { JSONValue } from '../json/json.js';
import type { ScopePolicy } from './scope-policy.js';

/**
 * A file or folder the workspace's file tools must not write, move or remove. By default they
 * must not read it either, and a sandboxed command never sees it (the agent definition file, the
 * sessions folder). `readable` paths are what the agent definition executes or loads (a stdio MCP
 * server's script, an OpenAPI spec, a skills folder, the memory bundle, worker modules): the
 * file tools may read them and a sandboxed command sees them read-only, but neither changes
 * them, so the model cannot plant code that `raf` itself runs or loads later. `reason` names it
 * in errors.
 */
export interface ProtectedPath {
  /** Absolute, or relative to the main root. */
  path: string;
  reason: string;
  /** Readable by the file tools, read-only in the sandbox (never written); default false. */
  readable?: boolean;
}

/** The folder(s) a workspace's tools act on, and what happens outside them. */
export interface WorkspaceScope {
  /** Absolute path of the main root. */
  root: string;
  /** Extra roots treated like `root` (containment is checked against each). */
  roots?: readonly string[];
  name: string;
  policy: ScopePolicy;
  /**
   * Paths protected besides the built-in ones (`.raf/`, `.env*`, everything in `.git`):
   * typically the agent definition file and the sessions folder.
   */
  protectedPaths?: readonly ProtectedPath[];
  /** Free-form settings from the YAML (`allowCommands`, `network`, `env`, `readableOutside`, …). */
  properties?: Readonly<Record<string, JSONValue>>;
}

/** Every root of a scope, main root first, without duplicates. */
export function scopeRoots(scope: WorkspaceScope): string[] {
  return [...new Set([scope.root, ...(scope.roots ?? [])])];
}
