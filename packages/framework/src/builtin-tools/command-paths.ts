import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { scopeRoots } from '@raf/core';
import { resolveInScope } from '../workspace/path-guard.js';
import { protectionOf, unreadableInside } from '../workspace/protected-paths.js';
import type { AskContext } from './builtin-tool.js';
import type { ShellWord } from './shell-words.js';

const FILE_URL = /^file:\/\/[^/]*(\/.*)$/i;

/**
 * The paths a word may name: the word itself, the value of `--opt=value`, the value glued to a
 * short option (`-o/x`, `-I../y`) and the path of a `file://` URL. Undefined: a `~user` word,
 * whose folder this process cannot tell.
 */
export function pathCandidates(word: ShellWord): string[] | undefined {
  const { value } = word;
  if (word.tilde) {
    if (value === '~') return [homedir()];
    if (value.startsWith('~/')) return [join(homedir(), value.slice(2))];
    return undefined;
  }
  const candidates = [value];
  const equals = value.indexOf('=');
  if (equals >= 0) candidates.push(value.slice(equals + 1));
  if (/^-[^-]/.test(value) && /^[/.]/.test(value.slice(2))) candidates.push(value.slice(2));
  for (const candidate of [...candidates]) {
    const url = FILE_URL.exec(candidate);
    if (url?.[1]) candidates.push(url[1]);
  }
  return candidates.filter((c) => c !== '');
}

/**
 * Whether any argument may name a path outside the workspace roots or a protected path,
 * resolved against the working folder the way the path guard resolves tool paths (links
 * followed, the nearest existing ancestor for a path not there yet). Anything unclear counts.
 */
export async function argumentsReachOutside(
  commands: readonly (readonly ShellWord[])[],
  workingDir: string,
  context: AskContext,
): Promise<boolean> {
  const scope = { ...context.scope, root: workingDir, roots: scopeRoots(context.scope) };
  for (const words of commands) {
    for (const word of words) {
      const candidates = pathCandidates(word);
      if (!candidates) return true;
      for (const candidate of candidates) {
        try {
          const resolved = await resolveInScope(scope, candidate, context.fs);
          if (resolved.scope === 'outside_workspace') return true;
          // A command may write what it names: any protected path (`.git/hooks` too) asks.
          if (protectionOf(resolved.real, 'read', context.protection)) return true;
        } catch {
          return true;
        }
      }
    }
  }
  return false;
}

/**
 * Why a command may read what the file tools refuse to: its working folder or a folder an
 * argument names holds the agent file, the sessions, a `.raf` or an `.env*` (`grep -r sk- .`,
 * `tar cf - .`, `find`), or an argument names such a path itself. Names the protected path;
 * undefined when none. The merely read-only paths (`.git`, what the definition loads) do not
 * count: the file tools read them too.
 */
export async function unreadableReach(
  commands: readonly (readonly ShellWord[])[],
  workingDir: string,
  context: AskContext,
): Promise<string | undefined> {
  const scope = { ...context.scope, root: workingDir, roots: scopeRoots(context.scope) };
  const folders = new Map<string, string>([[workingDir, "the command's folder"]]);
  const named = (real: string) => {
    const found = protectionOf(real, 'read', context.protection);
    return found?.kind === 'secret' ? found : undefined;
  };
  for (const word of commands.flat()) {
    for (const candidate of pathCandidates(word) ?? []) {
      const resolved = await resolveInScope(scope, candidate, context.fs).catch(() => undefined);
      if (!resolved?.exists) continue;
      const found = named(resolved.real);
      if (found) return `'${candidate}' is a protected path (${found.reason})`;
      if (resolved.kind === 'directory' && !folders.has(resolved.real))
        folders.set(resolved.real, `'${candidate}'`);
    }
  }
  for (const [real, shown] of folders) {
    const found = await unreadableInside(real, context.protection);
    // Relative to the workspace root: the reason can reach the model (under `deny`, as the
    // tool's error), and the absolute path would tell it where the user's files live.
    if (found)
      return `${shown} holds the protected path '${relative(context.scope.root, found.path)}' (${found.reason})`;
  }
  return undefined;
}
