/**
 * A conservative reader of POSIX `sh` command lines, for `allowCommands`. It accepts only what it
 * can account for completely — simple commands of literal words joined by `;`, `&&`, `||`, `|`
 * and `&`, with quotes, backslash escapes and comments — and refuses everything else (an approval
 * is then asked): expansions, substitutions, redirections, groups, globs, assignments, keywords.
 * No well-kept small JS library parses `sh` faithfully (shell-quote reads a mid-word `#` as a
 * comment, which `sh` does not), so this is hand-written and tested case by case.
 */

/** One word after quote removal. */
export interface ShellWord {
  value: string;
  /** The word starts with an unquoted `~` (tilde expansion: the home folder, or `~user`'s). */
  tilde: boolean;
}

export type ShellParse = { ok: true; commands: ShellWord[][] } | { ok: false; reason: string };

const OPERATORS = ['&&', '||', ';', '|', '&'] as const;
/** Words that make a command something other than a simple command, or run their arguments as code. */
const KEYWORDS = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'for',
  'in',
  'function',
  'select',
  'time',
  'coproc',
  '[[',
  ']]',
  'eval',
  'exec',
  'source',
  '.',
  'command',
  'builtin',
  'trap',
  'alias',
]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function fail(reason: string): ShellParse {
  return { ok: false, reason };
}

interface WordBuilder {
  value: string;
  /** Whether each character of `value` came from a quote or an escape. */
  quoted: boolean[];
}

function finishWord(word: WordBuilder, commandStart: boolean): ShellWord | string {
  const { value, quoted } = word;
  const unquoted = (i: number) => quoted[i] === false;
  if (commandStart) {
    const match = ASSIGNMENT.exec(value);
    if (match && quoted.slice(0, match[0].length).every((q) => !q))
      return `an assignment before a command (${match[0]}…)`;
    // Quotes stop keyword recognition but not builtins (`'eval' …` still evals): refuse both.
    if (KEYWORDS.has(value)) return `the shell keyword or builtin '${value}'`;
  }
  for (let i = 1; i < value.length; i++) {
    // `a=~/x` and `a:~/x` expand the home folder in some shells (bash) and not in others.
    if (value[i] === '~' && unquoted(i) && (value[i - 1] === '=' || value[i - 1] === ':') && unquoted(i - 1))
      return 'a tilde after = or :';
  }
  return { value, tilde: value.startsWith('~') && unquoted(0) };
}

/**
 * Reads `text` as `sh -c` would, or says why it cannot vouch for it. Every simple command comes
 * back as its words (at least one each).
 */
export function parseShellCommand(text: string): ShellParse {
  const commands: ShellWord[][] = [];
  let current: ShellWord[] = [];
  let word: WordBuilder | undefined;
  let lastOperator: string | undefined;
  const push = (ch: string, quoted: boolean) => {
    word ??= { value: '', quoted: [] };
    word.value += ch;
    word.quoted.push(quoted);
  };
  const endWord = (): string | undefined => {
    if (!word) return undefined;
    const done = finishWord(word, current.length === 0);
    word = undefined;
    if (typeof done === 'string') return done;
    current.push(done);
    return undefined;
  };
  const endCommand = (operator: string): string | undefined => {
    if (current.length === 0) return `'${operator}' without a command before it`;
    commands.push(current);
    current = [];
    lastOperator = operator;
    return undefined;
  };

  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    const code = c.charCodeAt(0);
    if (c === '\n' || c === '\r') return fail('a line break');
    if ((code < 0x20 && c !== '\t') || code === 0x7f) return fail('a control character');
    if (c === ' ' || c === '\t') {
      const problem = endWord();
      if (problem) return fail(problem);
      i++;
      continue;
    }
    if (c === '#' && !word) break; // a comment: only where a word would start
    const operator = OPERATORS.find((op) => text.startsWith(op, i));
    if (operator) {
      const problem = endWord() ?? endCommand(operator);
      if (problem) return fail(problem);
      i += operator.length;
      if (text[i] === ';' || text[i] === '&' || text[i] === '|')
        return fail(`the operator '${operator}${text[i]}'`);
      continue;
    }
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return fail('an unterminated single quote');
      word ??= { value: '', quoted: [] };
      for (let k = i + 1; k < close; k++) push(text[k] as string, true);
      i = close + 1;
      continue;
    }
    if (c === '"') {
      word ??= { value: '', quoted: [] };
      i++;
      for (;;) {
        if (i >= text.length) return fail('an unterminated double quote');
        const d = text[i] as string;
        if (d === '"') break;
        if (d === '$' || d === '`') return fail(`'${d}' inside double quotes (an expansion)`);
        if (d === '\n' || d === '\r') return fail('a line break');
        if (d === '\\') {
          const next = text[i + 1];
          if (next === undefined) return fail('an unterminated double quote');
          // Inside double quotes a backslash escapes only these; elsewhere it stays literal.
          if (next === '$' || next === '`' || next === '"' || next === '\\') {
            push(next, true);
            i += 2;
            continue;
          }
        }
        push(d, true);
        i++;
      }
      i++;
      continue;
    }
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined) return fail('a backslash at the end');
      if (next === '\n' || next === '\r') return fail('a line break');
      push(next, true);
      i += 2;
      continue;
    }
    if (c === '$') return fail("'$' (a parameter expansion or substitution)");
    if (c === '`') return fail('a backquote command substitution');
    if (c === '<' || c === '>') return fail('a redirection');
    if (c === '(' || c === ')') return fail('a subshell or function definition');
    if (c === '{' || c === '}') return fail('a brace group or brace expansion');
    if (c === '*' || c === '?' || c === '[') return fail('a glob pattern');
    if (c === '!') return fail("'!' (negation or history expansion)");
    push(c, false);
    i++;
  }
  const problem = endWord();
  if (problem) return fail(problem);
  if (current.length > 0) commands.push(current);
  else if (lastOperator && lastOperator !== ';' && lastOperator !== '&')
    return fail(`'${lastOperator}' without a command after it`);
  return { ok: true, commands };
}
