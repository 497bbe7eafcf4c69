import type { JSONValue } from '../json/json.js';
import type { ScopePolicy } from './scope-policy.js';

/** The folder(s) a workspace's tools act on, and what happens outside them. */
export interface WorkspaceScope {
  /** Absolute path of the main root. */
  root: string;
  /** Extra roots treated like `root` (containment is checked against each). */
  roots?: readonly string[];
  name: string;
  policy: ScopePolicy;
  /** Free-form settings from the YAML (`allowCommands`, `network`, …). */
  properties?: Readonly<Record<string, JSONValue>>;
}

/** Every root of a scope, main root first, without duplicates. */
export function scopeRoots(scope: WorkspaceScope): string[] {
  return [...new Set([scope.root, ...(scope.roots ?? [])])];
}
