import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentJsonSchema } from './agent-schema.js';

describe('the JSON Schema file shipped for editors', () => {
  it('matches the zod schema (regenerate with pnpm --filter @raf/decl schema:write)', () => {
    const shipped = JSON.parse(
      readFileSync(new URL('../../schema/agent.schema.json', import.meta.url), 'utf8'),
    );
    expect(shipped).toEqual(agentJsonSchema());
  });

  it('accepts the upstream snake_case spellings, but not inside data maps', () => {
    const schema = agentJsonSchema() as {
      properties: Record<string, { properties?: Record<string, unknown> }>;
    };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['maxToolRounds', 'max_tool_rounds', 'additional_instructions']),
    );
    const model = schema.properties.model as {
      properties: Record<string, { properties?: Record<string, unknown> }>;
    };
    expect(Object.keys(model.properties.connection?.properties ?? {})).toEqual(
      expect.arrayContaining(['apiKey', 'api_key']),
    );
  });

  it('accepts what the loader accepts: extra keys in model.options and connection, template: mustache', () => {
    const schema = agentJsonSchema() as { properties: Record<string, Record<string, unknown>> };
    const model = schema.properties.model as { properties: Record<string, Record<string, unknown>> };
    expect(model.properties.options?.additionalProperties).toBe(true);
    expect(model.properties.connection?.additionalProperties).toBe(true);
    const template = schema.properties.template as { anyOf: Record<string, unknown>[] };
    expect(template.anyOf[0]).toMatchObject({ type: 'string', enum: expect.arrayContaining(['mustache']) });
    expect(template.anyOf[1]).toMatchObject({ type: 'object', additionalProperties: false });
  });
});
