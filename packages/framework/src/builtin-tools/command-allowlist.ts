import { parseShellCommand, type ShellWord } from './shell-words.js';

/** The `allowCommands` of a workspace (`allowCommands` or the upstream `allowed_commands`). */
export function allowedCommandsOf(properties: Readonly<Record<string, unknown>> | undefined): string[] {
  const value = properties?.allowCommands ?? properties?.allowed_commands;
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '')
    : [];
}

/**
 * Splits a shell command into its simple commands (`a && b | c` → three), each as its words after
 * quote removal. Returns undefined when the command holds anything that could run other code or
 * touch files unseen (substitutions, expansions, redirections, groups, globs, assignments, line
 * breaks) or that `sh` would read differently (see `parseShellCommand`).
 */
export function splitCommand(command: string): string[][] | undefined {
  const parsed = parseShellCommand(command);
  return parsed.ok ? parsed.commands.map((words) => words.map((w) => w.value)) : undefined;
}

/**
 * For each simple command of `command`, the words after the allowed entry it starts with; or
 * undefined when a simple command is not allowed or the command cannot be read with certainty.
 */
export function allowedArguments(command: string, allowed: readonly string[]): ShellWord[][] | undefined {
  if (allowed.length === 0) return undefined;
  const parsed = parseShellCommand(command);
  if (!parsed.ok || parsed.commands.length === 0) return undefined;
  const entries = allowed
    .map((entry) => splitCommand(entry)?.[0])
    .filter((w): w is string[] => !!w && w.length > 0);
  const rest: ShellWord[][] = [];
  for (const words of parsed.commands) {
    const entry = entries.find((e) => e.every((word, i) => words[i]?.value === word && !words[i]?.tilde));
    if (!entry) return undefined;
    rest.push(words.slice(entry.length));
  }
  return rest;
}

/**
 * Whether every simple command of `command` starts with the words of an allowed entry (so
 * `git status` allows `git status -s` but not `git statusx` or `git status; rm -rf ~`). Path
 * arguments are checked separately (`run_command` asks when one reaches outside the roots).
 */
export function isCommandAllowed(command: string, allowed: readonly string[]): boolean {
  return allowedArguments(command, allowed) !== undefined;
}
