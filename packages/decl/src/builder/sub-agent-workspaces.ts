import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { scopeRoots, type WorkspaceScope } from '@raf/core';
import {
  allowedCommandsOf,
  isCommandAllowed,
  WorkspaceContextProvider,
  workspaceEnvOf,
} from '@raf/framework';
import type { ContextDecl } from '../schema/agent-schema.js';
import type { AgentPlan } from './agent-plan.js';

/** allow < approve < deny: a child's policy may be as strict as its parent's or stricter. */
const STRICTNESS: Readonly<Record<string, number>> = { AllowAll: 0, ApproveOutside: 1, DenyOutside: 2 };
const POLICY_WORD: Readonly<Record<string, string>> = {
  AllowAll: 'allow',
  ApproveOutside: 'approve',
  DenyOutside: 'deny',
};

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function inside(path: string, root: string): boolean {
  const rel = relative(real(root), real(path));
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
}

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** The `config:` key the author wrote for a setting (`allowed_commands`, `readable_outside`), for the error's line. */
function writtenKey(config: ContextDecl['config'], field: string): string {
  const names = field === 'allowCommands' ? [field, 'allowedCommands'] : [field];
  return Object.keys(config ?? {}).find((key) => names.includes(camel(key))) ?? field;
}

/** The workspace's `readableOutside`, absolute (the factory resolves them; relative to the main root else). */
function readableOutside(scope: WorkspaceScope): string[] {
  const value = scope.properties?.readableOutside ?? scope.properties?.readable_outside;
  if (!Array.isArray(value)) return [];
  return value
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '')
    .map((p) => (isAbsolute(p) ? p : resolve(scope.root, p)));
}

/**
 * What in a child workspace's settings is looser than in the parent workspace its roots lie in,
 * by field. Under a parent with `policy: allow` nothing is: its tools already run everything,
 * anywhere, unasked. Otherwise each setting that lets a call through without asking, or lets a
 * confined command reach further, must be one the parent has too: the allowlist (entry by entry,
 * matched as `run_command` matches it), the sandbox's network and its readable paths, and the
 * commands' environment (a `PATH` or `LD_PRELOAD` of its own makes an allowed command run other
 * code).
 */
function looserSettings(child: WorkspaceScope, parent: WorkspaceScope): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  const theirs = `the parent workspace '${parent.name}'`;
  if ((STRICTNESS[child.policy] ?? 2) < (STRICTNESS[parent.policy] ?? 2)) {
    problems.push({
      field: 'policy',
      message: `policy ${POLICY_WORD[child.policy]} is looser than ${theirs} (${POLICY_WORD[parent.policy]}); a sub-agent's policy must be at least as strict (allow < approve < deny)`,
    });
  }
  if (parent.policy === 'AllowAll') return problems;
  const allowed = allowedCommandsOf(parent.properties);
  const wider = allowedCommandsOf(child.properties).filter((entry) => !isCommandAllowed(entry, allowed));
  if (wider.length > 0) {
    problems.push({
      field: 'allowCommands',
      message: `allowCommands ${wider.map((e) => `'${e}'`).join(', ')} ${wider.length > 1 ? 'are' : 'is'} not covered by the allowCommands of ${theirs} (${allowed.length > 0 ? allowed.join(', ') : 'none'}); a sub-agent never runs unasked a command its parent would ask for`,
    });
  }
  if (child.properties?.network === true && parent.properties?.network !== true) {
    problems.push({
      field: 'network',
      message: `network: true, but ${theirs} has no network; a sub-agent's commands never reach further than its parent's`,
    });
  }
  const readable = [...readableOutside(parent), ...scopeRoots(parent)];
  const further = readableOutside(child).filter((path) => !readable.some((r) => inside(path, r)));
  if (further.length > 0) {
    problems.push({
      field: 'readableOutside',
      message: `readableOutside ${further.join(', ')} ${further.length > 1 ? 'are' : 'is'} not readable by ${theirs} (its roots and readableOutside: ${readable.join(', ')}); a sub-agent never reads further than its parent`,
    });
  }
  const parentEnv = workspaceEnvOf(parent);
  const changed = Object.entries(workspaceEnvOf(child))
    .filter(([name, value]) => parentEnv[name] !== value)
    .map(([name]) => name);
  if (changed.length > 0) {
    problems.push({
      field: 'env',
      message: `env sets ${changed.join(', ')}, which ${theirs} does not set to the same value; a sub-agent's commands get no environment its parent's would not (a PATH of its own makes an allowed command run other code)`,
    });
  }
  return problems;
}

/**
 * A child's workspace never reaches past its parent's roots, and is never looser (SPEC §7.1):
 * compared with every parent workspace one of its roots lies in, each field reported once, at
 * its place in the file. `parentless: 'allowed'` (a graph orchestration, whose root delegates
 * nothing): a parent without any workspace bounds nothing; a delegating coordinator's must have one.
 */
export function checkWorkspaces(
  plan: AgentPlan,
  parentPlan: AgentPlan,
  contexts: readonly { inherited: boolean; decl: ContextDecl }[],
  pathOf: (path: (string | number)[]) => (string | number)[],
  at: (path: (string | number)[], message: string) => void,
  parentless: 'error' | 'allowed' = 'error',
): void {
  const parents = parentPlan.providers
    .map((p) => p.provider)
    .filter((p): p is WorkspaceContextProvider => p instanceof WorkspaceContextProvider);
  if (parents.length === 0 && parentless === 'allowed') return;
  for (const { provider, index } of plan.providers) {
    if (!(provider instanceof WorkspaceContextProvider) || index === undefined) continue;
    const context = contexts[index];
    if (!context || context.inherited) continue;
    const where = (field: string) =>
      pathOf(['contexts', index, 'config', writtenKey(context.decl.config, field)]);
    const roots = scopeRoots(provider.scope);
    const outside = roots.find((r) => !parents.some((p) => scopeRoots(p.scope).some((pr) => inside(r, pr))));
    if (outside !== undefined) {
      at(
        where('root'),
        parents.length === 0
          ? `workspace '${provider.scope.name}' of a sub-agent needs a parent workspace to lie in; the parent has none`
          : `${outside} is outside the parent's workspace roots (${parents.flatMap((p) => scopeRoots(p.scope)).join(', ')}); a sub-agent never gets wider roots than its parent`,
      );
      continue;
    }
    // Its tools act on all its roots with one set of settings: each parent holding one bounds them.
    const containers = parents.filter((p) =>
      roots.some((r) => scopeRoots(p.scope).some((pr) => inside(r, pr))),
    );
    const reported = new Set<string>();
    for (const container of containers) {
      for (const { field, message } of looserSettings(provider.scope, container.scope)) {
        if (reported.has(field)) continue;
        reported.add(field);
        at(where(field), message);
      }
    }
  }
}
