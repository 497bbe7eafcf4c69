import { ExpressionError } from './expression-error.js';

export type TokenType = 'number' | 'string' | 'name' | 'op' | 'eof';

export interface Token {
  type: TokenType;
  value: string;
  /** Offset in the expression text (after the leading `=`). */
  at: number;
}

const OPERATORS = [
  '<>',
  '<=',
  '>=',
  '==',
  '!=',
  '&&',
  '||',
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '!',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  '.',
  ':',
];

/** Splits an expression into tokens; strings take `"…"` (with `""` or `\"` inside) or `'…'`. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const match = /^[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i))!;
      tokens.push({ type: 'number', value: match[0], at: i });
      i += match[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      const start = i++;
      let value = '';
      for (;;) {
        if (i >= text.length) throw new ExpressionError('unterminated string', start);
        const d = text[i]!;
        if (d === '\\' && i + 1 < text.length) {
          const e = text[i + 1]!;
          value += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          i += 2;
          continue;
        }
        if (d === c) {
          if (text[i + 1] === c) {
            value += c;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += d;
        i++;
      }
      tokens.push({ type: 'string', value, at: start });
      continue;
    }
    if (/[\p{L}_]/u.test(c)) {
      const match = /^[\p{L}_][\p{L}\p{N}_]*/u.exec(text.slice(i))!;
      tokens.push({ type: 'name', value: match[0], at: i });
      i += match[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op) throw new ExpressionError(`unexpected character "${c}"`, i);
    tokens.push({ type: 'op', value: op, at: i });
    i += op.length;
  }
  tokens.push({ type: 'eof', value: '', at: text.length });
  return tokens;
}
