import type { JSONSchema } from '@raf/core';

// The upstream's property kinds (PropertySchema) as JSON Schema types.
const KIND_TYPES: Readonly<Record<string, string>> = {
  string: 'string',
  integer: 'integer',
  float: 'number',
  number: 'number',
  boolean: 'boolean',
  array: 'array',
  object: 'object',
};

type Property = Record<string, unknown>;

/**
 * `outputSchema` as the JSON Schema the run asks for. A JSON Schema is taken as written; the
 * upstream's PropertySchema (`properties: [{ name, kind, description, required, enumValues }]`,
 * `strict`) is turned into one, an object with those properties (`strict`: no others).
 */
export function outputJsonSchema(declared: Record<string, unknown>): JSONSchema {
  const { properties } = declared;
  if (!Array.isArray(properties)) return declared as JSONSchema;
  const shape: Record<string, JSONSchema> = {};
  const required: string[] = [];
  for (const property of properties as Property[]) {
    const name = String(property.name);
    const schema: Record<string, unknown> = {};
    const type = KIND_TYPES[String(property.kind ?? 'string')];
    if (type) schema.type = type;
    if (typeof property.description === 'string') schema.description = property.description;
    const values = property.enumValues ?? property.enum_values;
    if (Array.isArray(values)) schema.enum = values;
    if (property.default !== undefined) schema.default = property.default;
    shape[name] = schema as JSONSchema;
    if (property.required === true) required.push(name);
  }
  return {
    type: 'object',
    properties: shape,
    ...(required.length > 0 && { required }),
    ...(declared.strict === true && { additionalProperties: false }),
  } as JSONSchema;
}
