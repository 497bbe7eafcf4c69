import { ExpressionError } from './expression-error.js';
import { type Token, tokenize } from './lexer.js';

/** The syntax tree of an expression. */
export type Expr =
  | { type: 'literal'; value: string | number | boolean | null; at: number }
  | { type: 'name'; name: string; at: number }
  | { type: 'member'; object: Expr; property: string; at: number }
  | { type: 'index'; object: Expr; index: Expr; at: number }
  | { type: 'call'; name: string; args: Expr[]; at: number }
  | { type: 'unary'; op: '-' | '!'; operand: Expr; at: number }
  | { type: 'binary'; op: string; left: Expr; right: Expr; at: number }
  | { type: 'list'; items: Expr[]; at: number }
  | { type: 'record'; entries: [string, Expr][]; at: number };

// Binding power of each infix operator (word operators are case-insensitive).
const INFIX: Record<string, number> = {
  '||': 1,
  or: 1,
  '&&': 2,
  and: 2,
  '=': 3,
  '==': 3,
  '!=': 3,
  '<>': 3,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
  in: 4,
  '&': 5,
  '+': 6,
  '-': 6,
  '*': 7,
  '/': 7,
  '%': 7,
};

const CANONICAL: Record<string, string> = { or: '||', and: '&&', '==': '=', '!=': '<>' };

/**
 * Parses an expression (the text after `=`): literals, `Local.x` paths, `a[0]`, calls such as
 * `Concat(a, b)`, `! - * / % + - &`, comparisons, `And`/`Or`/`&&`/`||`, `in`, `[lists]` and
 * `{records}`. A syntax tree only: nothing runs here.
 */
export function parseExpression(text: string): Expr {
  const tokens = tokenize(text);
  let position = 0;
  const peek = (): Token => tokens[position]!;
  const next = (): Token => tokens[position++]!;
  const expect = (value: string): Token => {
    const token = next();
    if (token.value !== value)
      throw new ExpressionError(
        `expected "${value}" but found ${token.type === 'eof' ? 'the end' : `"${token.value}"`}`,
        token.at,
      );
    return token;
  };
  const infixOf = (token: Token): string | undefined => {
    if (token.type === 'op' && token.value in INFIX) return token.value;
    if (token.type === 'name' && ['or', 'and', 'in'].includes(token.value.toLowerCase()))
      return token.value.toLowerCase();
    return undefined;
  };

  const list = (close: string): Expr[] => {
    const items: Expr[] = [];
    if (peek().value === close) {
      next();
      return items;
    }
    for (;;) {
      items.push(expression(0));
      const token = next();
      if (token.value === close) return items;
      if (token.value !== ',') throw new ExpressionError(`expected "," or "${close}"`, token.at);
    }
  };

  const primary = (): Expr => {
    const token = next();
    switch (token.type) {
      case 'number':
        return { type: 'literal', value: Number(token.value), at: token.at };
      case 'string':
        return { type: 'literal', value: token.value, at: token.at };
      case 'name': {
        const lower = token.value.toLowerCase();
        if (peek().value === '(') {
          next();
          return { type: 'call', name: token.value, args: list(')'), at: token.at };
        }
        if (lower === 'true' || lower === 'false')
          return { type: 'literal', value: lower === 'true', at: token.at };
        if (lower === 'null' || lower === 'blank') return { type: 'literal', value: null, at: token.at };
        if (lower === 'not') return { type: 'unary', op: '!', operand: expression(8), at: token.at };
        return { type: 'name', name: token.value, at: token.at };
      }
      case 'op':
        if (token.value === '(') {
          const inner = expression(0);
          expect(')');
          return inner;
        }
        if (token.value === '-' || token.value === '!')
          return { type: 'unary', op: token.value, operand: expression(8), at: token.at };
        if (token.value === '[') return { type: 'list', items: list(']'), at: token.at };
        if (token.value === '{') {
          const entries: [string, Expr][] = [];
          if (peek().value === '}') next();
          else
            for (;;) {
              const key = next();
              if (key.type !== 'name' && key.type !== 'string')
                throw new ExpressionError('expected a field name', key.at);
              expect(':');
              entries.push([key.value, expression(0)]);
              const sep = next();
              if (sep.value === '}') break;
              if (sep.value !== ',') throw new ExpressionError('expected "," or "}"', sep.at);
            }
          return { type: 'record', entries, at: token.at };
        }
        break;
      case 'eof':
        throw new ExpressionError('the expression ends too early', token.at);
    }
    throw new ExpressionError(`unexpected "${token.value}"`, token.at);
  };

  const postfix = (): Expr => {
    let expr = primary();
    for (;;) {
      const token = peek();
      if (token.value === '.' && token.type === 'op') {
        next();
        const name = next();
        if (name.type !== 'name') throw new ExpressionError('expected a field name after "."', name.at);
        expr = { type: 'member', object: expr, property: name.value, at: name.at };
      } else if (token.value === '[' && token.type === 'op') {
        next();
        const index = expression(0);
        expect(']');
        expr = { type: 'index', object: expr, index, at: token.at };
      } else return expr;
    }
  };

  function expression(minPower: number): Expr {
    let left = postfix();
    for (;;) {
      const op = infixOf(peek());
      if (op === undefined) return left;
      const power = INFIX[op]!;
      if (power <= minPower) return left;
      const token = next();
      const right = expression(power);
      left = { type: 'binary', op: CANONICAL[op] ?? op, left, right, at: token.at };
    }
  }

  const tree = expression(0);
  const rest = peek();
  if (rest.type !== 'eof')
    throw new ExpressionError(`unexpected "${rest.value}" after the expression`, rest.at);
  return tree;
}
