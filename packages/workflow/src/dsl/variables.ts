import type { JSONValue } from '@raf/core';
import type { WorkflowState } from '../graph/graph-types.js';
import { type Expr, ExpressionError, evaluate, parseExpression } from './expression/index.js';

/** The variable scopes of a workflow; a bare name means `Local`. */
export const SCOPES = ['Local', 'Global', 'System', 'Topic', 'Workflow', 'Conversation', 'Env'] as const;

/** A place in the YAML, for messages. */
export interface DslPosition {
  line: number;
  column: number;
}

/** A failure of an action at run time, naming the action and where it is written. */
export class ActionError extends Error {
  constructor(
    message: string,
    readonly where: string,
  ) {
    super(`${where}: ${message}`);
    this.name = 'ActionError';
  }
}

/**
 * Path segments that reach JavaScript's object machinery instead of a variable: a `SetVariable`
 * of `Global.__proto__.isAdmin` would otherwise set `Object.prototype.isAdmin` for the whole
 * process. Refused in every variable path, whatever the case.
 */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

/** The first forbidden segment of a variable path (`Local.__proto__.x` → `__proto__`), if any. */
export function forbiddenSegment(variable: string): string | undefined {
  return variable.split('.').find((part) => FORBIDDEN_SEGMENTS.has(part.toLowerCase()));
}

/** Why a variable path is refused, for compile-time problems and run-time errors alike. */
export function forbiddenPathMessage(variable: string, segment: string): string {
  return `variable ${JSON.stringify(variable)} uses "${segment}": __proto__, constructor and prototype are not variable names`;
}

function splitPath(variable: string): [string, string[]] {
  const segment = forbiddenSegment(variable);
  if (segment !== undefined) throw new Error(forbiddenPathMessage(variable, segment));
  const parts = variable.split('.').filter((p) => p !== '');
  const [first, ...rest] = parts;
  if (first && (SCOPES as readonly string[]).includes(first) && rest.length > 0) return [first, rest];
  return ['Local', parts];
}

export function getVariable(state: WorkflowState, variable: string): JSONValue | undefined {
  const [scope, path] = splitPath(variable);
  let value: JSONValue | undefined = state.get(scope);
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = Object.hasOwn(value, key) ? value[key] : undefined;
  }
  return value;
}

/** Sets `Local.a.b` (creating `a`); `undefined` removes it. Scope objects are replaced, never mutated, so checkpoints stay intact. */
export function setVariable(state: WorkflowState, variable: string, value: JSONValue | undefined): void {
  const [scope, path] = splitPath(variable);
  if (path.length === 0) return;
  const root = structuredClone((state.get(scope) ?? {}) as Record<string, JSONValue>);
  let node: Record<string, JSONValue> = root;
  for (const key of path.slice(0, -1)) {
    const child = Object.hasOwn(node, key) ? node[key] : undefined;
    node[key] = child !== null && typeof child === 'object' && !Array.isArray(child) ? child : {};
    node = node[key] as Record<string, JSONValue>;
  }
  const last = path.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  state.set(scope, root);
}

/** A value as written in the YAML: `=expr` is an expression (parsed once), anything else a literal. */
export type Compiled = { expr: Expr; text: string } | { literal: JSONValue };

export function compileValue(value: unknown): Compiled {
  if (typeof value === 'string' && value.startsWith('='))
    return { expr: parseExpression(value.slice(1)), text: value };
  return { literal: (value ?? null) as JSONValue };
}

export function evaluateValue(compiled: Compiled, state: WorkflowState): JSONValue {
  if ('literal' in compiled) {
    const literal = compiled.literal;
    // Literal lists and records may hold expressions too.
    if (Array.isArray(literal)) return literal.map((v) => evaluateValue(compileValue(v), state));
    if (literal !== null && typeof literal === 'object')
      return Object.fromEntries(
        Object.entries(literal).map(([k, v]) => [k, evaluateValue(compileValue(v), state)]),
      );
    return literal;
  }
  try {
    return evaluate(compiled.expr, (name) => state.get(name)) ?? null;
  } catch (error) {
    if (error instanceof ExpressionError) throw new Error(`${compiled.text}: ${error.message}`);
    throw error;
  }
}
