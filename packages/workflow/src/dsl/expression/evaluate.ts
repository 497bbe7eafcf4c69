import type { JSONValue } from '@raf/core';
import { ExpressionError } from './expression-error.js';
import type { Expr } from './parser.js';

/** Resolves the root of a path (`Local`, `System`, `Global`, …) to its value. */
export type Scope = (name: string) => JSONValue | undefined;

type Value = JSONValue | undefined;

const isRecord = (v: Value): v is Record<string, JSONValue> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

export function toText(v: Value): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** A number from a number, a numeric string or a boolean; NaN otherwise. */
function toNumber(v: Value): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  return Number.NaN;
}

function truthy(v: Value): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return v !== '' && v.toLowerCase() !== 'false';
  return true;
}

const blank = (v: Value) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

function equal(a: Value, b: Value): boolean {
  if (blank(a) && blank(b)) return true;
  if (typeof a === 'number' || typeof b === 'number') {
    const [x, y] = [toNumber(a), toNumber(b)];
    if (!Number.isNaN(x) && !Number.isNaN(y)) return x === y;
  }
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

function compare(op: string, a: Value, b: Value, at: number): boolean {
  const [x, y] = [toNumber(a), toNumber(b)];
  let order: number;
  if (!Number.isNaN(x) && !Number.isNaN(y)) order = x - y;
  else if (typeof a === 'string' && typeof b === 'string') order = a < b ? -1 : a > b ? 1 : 0;
  else
    throw new ExpressionError(
      `cannot compare ${JSON.stringify(a ?? null)} ${op} ${JSON.stringify(b ?? null)}`,
      at,
    );
  return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;
}

function arithmetic(op: string, a: Value, b: Value, at: number): number {
  const [x, y] = [toNumber(a), toNumber(b)];
  if (Number.isNaN(x) || Number.isNaN(y))
    throw new ExpressionError(
      `"${op}" needs numbers (got ${JSON.stringify(a ?? null)} and ${JSON.stringify(b ?? null)})`,
      at,
    );
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      if (y === 0) throw new ExpressionError('division by zero', at);
      return x / y;
    default:
      return x % y;
  }
}

function items(v: Value): JSONValue[] {
  if (Array.isArray(v)) return v;
  if (blank(v)) return [];
  return [v as JSONValue];
}

type Fn = (args: Value[], at: number) => Value;

const text1 =
  (f: (s: string, args: Value[]) => Value): Fn =>
  (args) =>
    f(toText(args[0]), args);

/**
 * The functions an expression may call (names are case-insensitive). Nothing here reaches the
 * host. Looked up as own properties only: `Constructor("x")` must not find `Object`.
 */
const FUNCTIONS: Record<string, Fn> = {
  concat: (args) => args.map((a) => (Array.isArray(a) ? a.map(toText).join('') : toText(a))).join(''),
  concatenate: (args) => args.map(toText).join(''),
  len: text1((s, args) => (Array.isArray(args[0]) ? args[0].length : s.length)),
  upper: text1((s) => s.toUpperCase()),
  lower: text1((s) => s.toLowerCase()),
  trim: text1((s) => s.trim()),
  left: text1((s, args) => s.slice(0, toNumber(args[1]))),
  right: text1((s, args) => (toNumber(args[1]) > 0 ? s.slice(-toNumber(args[1])) : '')),
  mid: text1((s, args) =>
    s.substr(toNumber(args[1]) - 1, args[2] === undefined ? undefined : toNumber(args[2])),
  ),
  substitute: text1((s, args) => s.split(toText(args[1])).join(toText(args[2]))),
  replace: text1((s, args) => s.split(toText(args[1])).join(toText(args[2]))),
  split: text1((s, args) => s.split(toText(args[1]))),
  join: (args) =>
    items(args[0])
      .map(toText)
      .join(toText(args[1] ?? '')),
  startswith: text1((s, args) => s.toLowerCase().startsWith(toText(args[1]).toLowerCase())),
  endswith: text1((s, args) => s.toLowerCase().endsWith(toText(args[1]).toLowerCase())),
  contains: (args) =>
    Array.isArray(args[0])
      ? args[0].some((i) => equal(i, args[1]))
      : toText(args[0]).toLowerCase().includes(toText(args[1]).toLowerCase()),
  find: (args) => toText(args[1]).indexOf(toText(args[0])) + 1,
  text: (args) => toText(args[0]),
  string: (args) => toText(args[0]),
  value: (args, at) => {
    const n = toNumber(args[0]);
    if (Number.isNaN(n)) throw new ExpressionError(`Value: "${toText(args[0])}" is not a number`, at);
    return n;
  },
  number: (args) => toNumber(args[0]),
  int: (args) => Math.trunc(toNumber(args[0])),
  round: (args) => {
    const digits = args[1] === undefined ? 0 : toNumber(args[1]);
    const f = 10 ** digits;
    return Math.round(toNumber(args[0]) * f) / f;
  },
  abs: (args) => Math.abs(toNumber(args[0])),
  sum: (args) => args.flatMap(items).reduce<number>((s, v) => s + toNumber(v), 0),
  max: (args) => Math.max(...args.flatMap(items).map(toNumber)),
  min: (args) => Math.min(...args.flatMap(items).map(toNumber)),
  if: (args) => {
    for (let i = 0; i + 1 < args.length; i += 2) if (truthy(args[i])) return args[i + 1];
    return args.length % 2 === 1 ? args.at(-1) : null;
  },
  isblank: (args) => blank(args[0]),
  isempty: (args) => blank(args[0]),
  coalesce: (args) => args.find((a) => !blank(a)) ?? null,
  not: (args) => !truthy(args[0]),
  and: (args) => args.every(truthy),
  or: (args) => args.some(truthy),
  countrows: (args) => items(args[0]).length,
  count: (args) => items(args[0]).length,
  first: (args) => items(args[0])[0] ?? null,
  last: (args) => items(args[0]).at(-1) ?? null,
  index: (args) => items(args[0])[toNumber(args[1]) - 1] ?? null,
  table: (args) => args.map((a) => a ?? null),
  parsejson: (args, at) => {
    try {
      return JSON.parse(toText(args[0])) as JSONValue;
    } catch {
      throw new ExpressionError('ParseJSON: not valid JSON', at);
    }
  },
  json: (args) => JSON.stringify(args[0] ?? null),
  now: () => new Date().toISOString(),
  today: () => new Date().toISOString().slice(0, 10),
  guid: () => crypto.randomUUID(),
};

export const FUNCTION_NAMES = Object.keys(FUNCTIONS);

/** Evaluates a parsed expression against the variables; never runs host code. */
export function evaluate(expr: Expr, scope: Scope): Value {
  switch (expr.type) {
    case 'literal':
      return expr.value;
    case 'name':
      return scope(expr.name);
    case 'member': {
      const object = evaluate(expr.object, scope);
      if (!isRecord(object)) return undefined;
      return Object.hasOwn(object, expr.property) ? object[expr.property] : undefined;
    }
    case 'index': {
      const object = evaluate(expr.object, scope);
      const index = evaluate(expr.index, scope);
      if (Array.isArray(object)) return object[toNumber(index)];
      if (isRecord(object)) {
        const key = toText(index);
        return Object.hasOwn(object, key) ? object[key] : undefined;
      }
      return undefined;
    }
    case 'list':
      return expr.items.map((i) => evaluate(i, scope) ?? null);
    case 'record':
      return Object.fromEntries(expr.entries.map(([k, v]) => [k, evaluate(v, scope) ?? null]));
    case 'call': {
      const key = expr.name.toLowerCase();
      const fn = Object.hasOwn(FUNCTIONS, key) ? FUNCTIONS[key] : undefined;
      if (!fn) throw new ExpressionError(`unknown function ${expr.name}()`, expr.at);
      return fn(
        expr.args.map((a) => evaluate(a, scope)),
        expr.at,
      );
    }
    case 'unary': {
      const operand = evaluate(expr.operand, scope);
      return expr.op === '!' ? !truthy(operand) : arithmetic('-', 0, operand, expr.at);
    }
    case 'binary': {
      if (expr.op === '&&') return truthy(evaluate(expr.left, scope)) && truthy(evaluate(expr.right, scope));
      if (expr.op === '||') return truthy(evaluate(expr.left, scope)) || truthy(evaluate(expr.right, scope));
      const left = evaluate(expr.left, scope);
      const right = evaluate(expr.right, scope);
      switch (expr.op) {
        case '=':
          return equal(left, right);
        case '<>':
          return !equal(left, right);
        case '<':
        case '<=':
        case '>':
        case '>=':
          return compare(expr.op, left, right, expr.at);
        case '&':
          return toText(left) + toText(right);
        case 'in':
          return Array.isArray(right)
            ? right.some((i) => equal(i, left))
            : toText(right).toLowerCase().includes(toText(left).toLowerCase());
        case '+':
          if (typeof left === 'string' && Number.isNaN(toNumber(left))) return left + toText(right);
          return arithmetic('+', left, right, expr.at);
        default:
          return arithmetic(expr.op, left, right, expr.at);
      }
    }
  }
}

export const isTruthy = truthy;
