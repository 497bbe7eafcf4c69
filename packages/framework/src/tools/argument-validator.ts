import type { Validator } from '@cfworker/json-schema';
import { lazyRequire } from '../lazy-require.js';

const jsonSchema = lazyRequire<typeof import('@cfworker/json-schema')>('@cfworker/json-schema');

import type { ITool, JSONValue } from '@raf/core';
import { nestsDeeperThan } from '@raf/core/internal';
import { MAX_ARGUMENT_DEPTH } from './json-depth.js';

/** `validated`: what the tool's own `validateArguments` made of the arguments, for `execute`. */
export type ArgumentCheck = { ok: true; args: JSONValue; validated?: unknown } | { ok: false; error: string };

const validators = new WeakMap<object, Validator>();

function validatorFor(schema: object): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new (jsonSchema().Validator)(
      schema as ConstructorParameters<typeof Validator>[0],
      '7',
      false,
    );
    validators.set(schema, validator);
  }
  return validator;
}

/**
 * What is wrong with a value against a JSON Schema (draft 7), as a few `path: problem` lines;
 * empty when it matches. Tool arguments and structured answers are both checked with it.
 */
export function jsonSchemaProblems(schema: object, value: unknown, most = 5): string[] {
  const result = validatorFor(schema).validate(value);
  if (result.valid) return [];
  const problems = result.errors
    .filter((e) => e.keyword !== 'properties')
    .map(
      (e) => `${e.instanceLocation === '#' ? '' : `${e.instanceLocation.replace(/^#\//, '')}: `}${e.error}`,
    )
    .slice(0, most);
  return problems.length > 0 ? problems : ['it does not match the schema'];
}

function correction(tool: ITool, problem: string): string {
  return `Invalid arguments for ${tool.name}: ${problem}. Call it again with arguments matching this JSON Schema: ${JSON.stringify(tool.parameters)}`;
}

/**
 * Parses a call's raw arguments and checks them against the tool's JSON Schema. A failure is a
 * correction message for the model, carrying the schema; the tool is not executed.
 */
export function checkArguments(tool: ITool, raw: string): ArgumentCheck {
  let args: unknown;
  try {
    args = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return {
      ok: false,
      error: correction(
        tool,
        `the arguments are not valid JSON (${raw.length > 120 ? `${raw.slice(0, 120)}…` : raw})`,
      ),
    };
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return { ok: false, error: correction(tool, 'expected a JSON object') };
  }
  if (nestsDeeperThan(args, MAX_ARGUMENT_DEPTH)) {
    return {
      ok: false,
      error: correction(tool, `the arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels`),
    };
  }
  if (tool.validateArguments) {
    const own = tool.validateArguments(args);
    if (!own.ok) return { ok: false, error: correction(tool, own.error) };
    return own.args === undefined
      ? { ok: true, args: args as JSONValue }
      : { ok: true, args: args as JSONValue, validated: own.args };
  }
  const problems = jsonSchemaProblems(tool.parameters, args);
  if (problems.length > 0) {
    return {
      ok: false,
      error: correction(tool, problems.join('; ')),
    };
  }
  return { ok: true, args: args as JSONValue };
}
