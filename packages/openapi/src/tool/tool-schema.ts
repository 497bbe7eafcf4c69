import type { JSONSchema } from '@raf/core';
import type { ApiOperation, JsonSchema, OperationParameter } from '../spec/read-operations.js';

/** Keywords that describe a document, not the value a model must produce. */
const DROPPED = new Set(['xml', 'example', 'examples', 'externalDocs', 'discriminator', '$schema', '$id']);
/** Deeper than this, a schema is cut to "any value": models do not need the 40th level. */
const MAX_DEPTH = 12;
/**
 * Schema nodes one tool's parameters may expand to. A dereferenced spec shares each `$ref`'d
 * schema, so ten references at each of ten levels are 10^10 nodes when walked as a tree: past
 * this many, what remains is cut (the model sees that it was).
 */
export const MAX_SCHEMA_NODES = 5000;

/** How many more nodes the tool being built may expand (shared by all its parameters). */
export interface SchemaBudget {
  nodes: number;
}

/**
 * A copy of a keyword's plain value (`enum`, `default`, `const`), charged to the budget: it is
 * shared in the dereferenced document too, so copying it by reference could carry an exponential
 * structure into the schema sent to the model. Undefined (the keyword is dropped) when it does not
 * fit or comes round again.
 */
function plainValue(value: unknown, budget: SchemaBudget, enclosing: object[] = []): unknown {
  if (!value || typeof value !== 'object') return value;
  if (budget.nodes <= 0 || enclosing.includes(value)) return undefined;
  budget.nodes -= 1;
  enclosing.push(value);
  try {
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      for (const item of value) {
        const copy = plainValue(item, budget, enclosing);
        if (copy === undefined && item !== undefined) return undefined;
        items.push(copy);
      }
      return items;
    }
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const one = plainValue(item, budget, enclosing);
      if (one === undefined && item !== undefined) return undefined;
      copy[key] = one;
    }
    return copy;
  } finally {
    enclosing.pop();
  }
}

/**
 * A spec schema as a tool schema: OpenAPI 3.0 `nullable` becomes a `null` type, vendor
 * extensions and examples go, `readOnly` properties leave request schemas, and a circular schema
 * is cut where it comes round again, as a described "any value" (a model cannot follow a cycle).
 */
export function toToolSchema(
  schema: unknown,
  names: WeakMap<object, string> = new WeakMap(),
  depth = 0,
  enclosing: readonly object[] = [],
  budget: SchemaBudget = { nodes: MAX_SCHEMA_NODES },
): JsonSchema {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return {};
  if (budget.nodes <= 0) return { description: 'not expanded (schema size limit)' };
  budget.nodes -= 1;
  const source = schema as Record<string, unknown>;
  if (enclosing.includes(source)) {
    const name = names.get(source) ?? (typeof source.title === 'string' ? source.title : undefined);
    return { description: `recursive: another ${name ?? 'value of the enclosing shape'} (not expanded)` };
  }
  if (typeof source.$ref === 'string') return { description: `see ${source.$ref} (not resolved)` };
  if (depth > MAX_DEPTH) return {};
  const path = [...enclosing, source];
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (DROPPED.has(key) || key.startsWith('x-') || key === 'nullable' || key === 'readOnly') continue;
    if (key === 'properties' && value && typeof value === 'object') {
      const properties: Record<string, JsonSchema> = {};
      for (const [name, property] of Object.entries(value as Record<string, unknown>)) {
        if ((property as { readOnly?: unknown } | null)?.readOnly === true) continue;
        properties[name] = toToolSchema(property, names, depth + 1, path, budget);
      }
      out.properties = properties;
    } else if (
      ['items', 'additionalProperties', 'not', 'contains'].includes(key) &&
      typeof value === 'object'
    ) {
      out[key] = toToolSchema(value, names, depth + 1, path, budget);
    } else if (['allOf', 'anyOf', 'oneOf', 'prefixItems'].includes(key) && Array.isArray(value)) {
      out[key] = value.map((item) => toToolSchema(item, names, depth + 1, path, budget));
    } else {
      const copy = plainValue(value, budget);
      if (copy !== undefined) out[key] = copy;
    }
  }
  if (Array.isArray(out.required) && out.properties) {
    const kept = (out.required as string[]).filter((name) => name in (out.properties as object));
    if (kept.length > 0) out.required = kept;
    else delete out.required;
  }
  if (source.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

/** Where each argument of a tool call goes in the HTTP request. */
export interface ArgumentMap {
  parameters: { argument: string; parameter: OperationParameter }[];
  /** The argument holding the request body (`body`, or `requestBody` when a parameter is named `body`). */
  body?: string;
}

/**
 * The tool's parameters: one property per path/query/header/cookie parameter (a name used twice
 * gets its location as a prefix, `query_id`), and `body` for the request body.
 */
export function operationArguments(
  operation: ApiOperation,
  names?: WeakMap<object, string>,
): { schema: JSONSchema; map: ArgumentMap } {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const map: ArgumentMap = { parameters: [] };
  const budget: SchemaBudget = { nodes: MAX_SCHEMA_NODES };
  for (const parameter of operation.parameters) {
    const argument = parameter.name in properties ? `${parameter.in}_${parameter.name}` : parameter.name;
    const schema = toToolSchema(parameter.schema, names, 0, [], budget);
    properties[argument] = {
      ...schema,
      ...(parameter.description && { description: parameter.description }),
    };
    if (parameter.required) required.push(argument);
    map.parameters.push({ argument, parameter });
  }
  if (operation.body) {
    const argument = 'body' in properties ? 'requestBody' : 'body';
    const schema = toToolSchema(operation.body.schema, names, 0, [], budget);
    properties[argument] = {
      ...schema,
      ...(operation.body.description && !schema.description && { description: operation.body.description }),
    };
    if (operation.body.required) required.push(argument);
    map.body = argument;
  }
  return {
    schema: {
      type: 'object',
      properties,
      ...(required.length > 0 && { required }),
      additionalProperties: false,
    },
    map,
  };
}
