import type { JSONSchema, JSONValue } from '@raf/core';
import type { GbnfJsonSchema } from 'node-llama-cpp';

/**
 * Tool parameters (JSON Schema) as node-llama-cpp's grammar schema, which constrains what the model
 * may write. That dialect differs: every listed property is required, `additionalProperties`
 * defaults to false, a schema without a type means `null`, only `$defs` references resolve, and
 * `type: 'object'` must be a lone string. So an optional property becomes `oneOf [it, null]` (the
 * null is removed again by `dropAbsent`), a schema without a type becomes any JSON value, `anyOf`
 * becomes `oneOf`, `definitions` become `$defs`, and keywords the grammar cannot enforce
 * (`pattern`, `minimum`, …) are left to the tool's own argument check.
 */
type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const ANY: GbnfJsonSchema = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'object', additionalProperties: true },
    { type: 'array' },
  ],
};
const NULL: GbnfJsonSchema = { type: 'null' };
const BASIC = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const DATE_FORMATS = new Set(['date-time', 'time', 'date']);
const isLiteral = (value: unknown) =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

function withDescription(schema: GbnfJsonSchema, source: Schema): GbnfJsonSchema {
  return typeof source.description === 'string' && !('$ref' in schema)
    ? ({ ...schema, description: source.description } as GbnfJsonSchema)
    : schema;
}

function refName(ref: string): string | undefined {
  return /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref)?.[1];
}

/** One JSON Schema node (`defs`: the names `$ref` may point at; unknown ones become any value). */
function convert(schema: unknown, defs: ReadonlySet<string>): GbnfJsonSchema {
  if (schema === true || !isSchema(schema)) return ANY;
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    return name !== undefined && defs.has(name) ? ({ $ref: `#/$defs/${name}` } as GbnfJsonSchema) : ANY;
  }
  const options = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(options) && options.length > 0)
    return withDescription({ oneOf: options.map((o) => convert(o, defs)) }, schema);
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return convert(mergeAll(schema), defs);
  if ('const' in schema && isLiteral(schema.const))
    return withDescription({ const: schema.const as string }, schema);
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter(isLiteral) as (string | number | boolean | null)[];
    if (values.length > 0) return withDescription({ enum: values }, schema);
  }
  const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  const typed = types.filter((t): t is string => typeof t === 'string');
  if (typed.length === 0) return withDescription(ANY, schema);
  const alternatives = typed.map((type) => convertTyped(type, schema, defs));
  if (alternatives.length === 1) return withDescription(alternatives[0] as GbnfJsonSchema, schema);
  return withDescription({ oneOf: alternatives }, schema);
}

function convertTyped(type: string, schema: Schema, defs: ReadonlySet<string>): GbnfJsonSchema {
  switch (type) {
    case 'object':
      return convertObject(schema, defs);
    case 'array': {
      const items = schema.items;
      const prefix = Array.isArray(schema.prefixItems)
        ? schema.prefixItems
        : Array.isArray(items)
          ? items
          : [];
      return {
        type: 'array',
        ...(isSchema(items) && { items: convert(items, defs) }),
        ...(prefix.length > 0 && { prefixItems: prefix.map((p) => convert(p, defs)) }),
        ...(typeof schema.minItems === 'number' && { minItems: schema.minItems }),
        ...(typeof schema.maxItems === 'number' && { maxItems: schema.maxItems }),
      };
    }
    case 'string':
      if (typeof schema.format === 'string' && DATE_FORMATS.has(schema.format))
        return { type: 'string', format: schema.format as 'date' };
      return {
        type: 'string',
        ...(typeof schema.minLength === 'number' && { minLength: schema.minLength }),
        ...(typeof schema.maxLength === 'number' && { maxLength: schema.maxLength }),
      };
    default:
      return BASIC.has(type) ? { type: type as 'string' } : ANY;
  }
}

function convertObject(schema: Schema, defs: ReadonlySet<string>): GbnfJsonSchema {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(properties);
  const extra = schema.additionalProperties;
  const converted: Record<string, GbnfJsonSchema> = {};
  for (const name of names) {
    const property = convert(properties[name], defs);
    converted[name] = required.has(name) ? property : { oneOf: [property, NULL] };
  }
  return {
    type: 'object',
    ...(names.length > 0 && { properties: converted }),
    // JSON Schema allows any extra key unless told otherwise; a schema naming no property is a free map.
    additionalProperties:
      extra === false ? false : isSchema(extra) ? convert(extra, defs) : names.length === 0 || extra === true,
  } as GbnfJsonSchema;
}

/** `allOf` of object schemas as one object (properties and required lists joined). */
function mergeAll(schema: Schema): Schema {
  const { allOf, ...rest } = schema;
  const merged: Schema = { ...rest, properties: { ...(isSchema(rest.properties) ? rest.properties : {}) } };
  const required = new Set(Array.isArray(rest.required) ? (rest.required as string[]) : []);
  for (const part of allOf as unknown[]) {
    if (!isSchema(part)) continue;
    if (part.type !== undefined) merged.type ??= part.type;
    if (isSchema(part.properties)) Object.assign(merged.properties as Schema, part.properties);
    if (Array.isArray(part.required)) for (const name of part.required) required.add(name);
  }
  merged.required = [...required];
  return merged;
}

/** The grammar schema of a tool's parameters (an object schema with its `$defs`). */
export function toGbnfSchema(parameters: JSONSchema): GbnfJsonSchema {
  const rawDefs = {
    ...(isSchema(parameters.definitions) ? parameters.definitions : {}),
    ...(isSchema(parameters.$defs) ? parameters.$defs : {}),
  };
  const names = new Set(Object.keys(rawDefs));
  const root = convert(parameters.type === undefined ? { ...parameters, type: 'object' } : parameters, names);
  if (names.size === 0) return root;
  const $defs = Object.fromEntries(Object.entries(rawDefs).map(([name, def]) => [name, convert(def, names)]));
  return { ...root, $defs } as GbnfJsonSchema;
}

/**
 * The arguments without the nulls the grammar made the model write for optional properties it
 * had nothing for (a property whose own schema allows null keeps it).
 */
export function dropAbsent(value: JSONValue, schema: unknown, defs: Schema = {}): JSONValue {
  if (!isSchema(schema)) return value;
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    return name === undefined ? value : dropAbsent(value, defs[name], defs);
  }
  const scope: Schema = {
    ...defs,
    ...(isSchema(schema.definitions) ? schema.definitions : {}),
    ...(isSchema(schema.$defs) ? schema.$defs : {}),
  };
  if (Array.isArray(value)) {
    return isSchema(schema.items) ? value.map((item) => dropAbsent(item, schema.items, scope)) : value;
  }
  if (value === null || typeof value !== 'object') return value;
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const out: Record<string, JSONValue> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    const property = properties[key];
    if (item === null && property !== undefined && !required.has(key) && !allowsNull(property, scope))
      continue;
    out[key] = dropAbsent(item, property, scope);
  }
  return out;
}

function allowsNull(schema: unknown, defs: Schema): boolean {
  if (schema === true || !isSchema(schema)) return true;
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    return name === undefined || allowsNull(defs[name], defs);
  }
  const options = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(options)) return options.some((o) => allowsNull(o, defs));
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if ('const' in schema) return schema.const === null;
  if (schema.type === undefined) return true;
  return Array.isArray(schema.type) ? schema.type.includes('null') : schema.type === 'null';
}
