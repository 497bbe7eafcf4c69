import type { JSONSchema, OutputSchema } from '@raf/core';

/** The name OpenAI accepts (`^[a-zA-Z0-9_-]{1,64}$`), from the schema's own or `output`. */
export function outputName(output: OutputSchema): string {
  const name = (output.name ?? 'output').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return name === '' ? 'output' : name;
}

/**
 * Whether a schema meets OpenAI's strict subset: every object closed (`additionalProperties:
 * false`) with all its properties required. Strict mode is asked for when it does (the model can
 * then only write matching JSON); a looser schema goes non-strict rather than being refused, and
 * the answer is validated after either way.
 */
export function isStrictSchema(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictSchema);
  if (schema === null || typeof schema !== 'object') return true;
  const node = schema as Record<string, unknown>;
  if (node.type === 'object' || node.properties !== undefined) {
    if (node.additionalProperties !== false) return false;
    const properties = Object.keys((node.properties as Record<string, unknown> | undefined) ?? {});
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    if (properties.some((name) => !required.has(name))) return false;
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    if (value !== null && typeof value === 'object' && !isStrictSchema(value)) return false;
  }
  return true;
}

/** Chat Completions' `response_format` for an output schema. */
export function jsonSchemaResponseFormat(output: OutputSchema): Record<string, unknown> {
  return {
    type: 'json_schema',
    json_schema: {
      name: outputName(output),
      ...(output.description !== undefined && { description: output.description }),
      schema: output.schema,
      strict: isStrictSchema(output.schema),
    },
  };
}

/** The tool Anthropic is made to call with the answer (its input is the structured output). */
export const OUTPUT_TOOL_NAME = 'final_answer';

export function outputTool(output: OutputSchema): {
  name: string;
  description: string;
  input_schema: JSONSchema;
} {
  return {
    name: OUTPUT_TOOL_NAME,
    description:
      output.description ??
      'Give the final answer by calling this tool; its input is the answer, matching the schema.',
    input_schema: output.schema,
  };
}
