import { lazyRequire } from '../lazy-require.js';

const shellQuote = lazyRequire<typeof import('shell-quote')>('shell-quote');

const SEPARATORS = new Set(['&&', '||', ';', '|', '&', ';;', '|&']);

/** The `allowCommands` of a workspace (`allowCommands` or the upstream `allowed_commands`). */
export function allowedCommandsOf(properties: Readonly<Record<string, unknown>> | undefined): string[] {
  const value = properties?.allowCommands ?? properties?.allowed_commands;
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '')
    : [];
}

/** shell-quote reads an unterminated quote as if it were closed; the shell would not. */
function quotesBalanced(command: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
    } else if (c === '\\') {
      i++;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
    }
  }
  return quote === undefined;
}

/**
 * Splits a shell command into its simple commands (`a && b | c` → three). Returns undefined when
 * the command holds anything that could run other code or touch files unseen: substitutions,
 * subshells, redirections, newlines, or text the parser cannot read.
 */
export function splitCommand(command: string): string[][] | undefined {
  if (/[\n\r`]|\$\(|<\(|>\(/.test(command) || !quotesBalanced(command)) return undefined;
  let tokens: ReturnType<ReturnType<typeof shellQuote>['parse']>;
  try {
    // Keep `$VAR` as written: approval must not depend on this process's environment.
    tokens = shellQuote().parse(command, (name) => `$${name}`);
  } catch {
    return undefined;
  }
  const commands: string[][] = [[]];
  for (const token of tokens) {
    if (typeof token === 'string') {
      commands[commands.length - 1]?.push(token);
    } else if ('op' in token && SEPARATORS.has(token.op)) {
      commands.push([]);
    } else if ('comment' in token) {
      break;
    } else if ('op' in token && token.op === 'glob') {
      commands[commands.length - 1]?.push(token.pattern);
    } else {
      return undefined; // redirections, subshell parentheses
    }
  }
  return commands.filter((words) => words.length > 0);
}

/**
 * Whether every simple command of `command` starts with the words of an allowed entry (so
 * `git status` allows `git status -s` but not `git statusx` or `git status; rm -rf ~`).
 */
export function isCommandAllowed(command: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return false;
  const commands = splitCommand(command);
  if (!commands || commands.length === 0) return false;
  const entries = allowed
    .map((entry) => splitCommand(entry)?.[0])
    .filter((w): w is string[] => !!w && w.length > 0);
  return commands.every((words) => entries.some((entry) => entry.every((word, i) => words[i] === word)));
}
