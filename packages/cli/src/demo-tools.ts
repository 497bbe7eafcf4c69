import type { ITool, ToolResult } from '@raf/core';

/**
 * The two tools the upstream `raf` binary registers in its own code (`crates/cli`): agent files
 * written for it declare them as `kind: function` tools named `echo` and `add`, so the CLI
 * registers the same names, descriptions and argument schemas. Code users register their own.
 */
export function demoTools(): ITool[] {
  return [echoTool, addTool];
}

const echoTool: ITool = {
  name: 'echo',
  description: 'Echoes back the input text',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to echo' } },
    required: ['text'],
    additionalProperties: false,
  },
  async execute(args): Promise<ToolResult> {
    const text = (args as { text?: unknown } | null)?.text;
    return typeof text === 'string'
      ? { ok: true, data: text }
      : { ok: false, error: 'text must be a string' };
  },
};

const addTool: ITool = {
  name: 'add',
  description: 'Adds two numbers together',
  parameters: {
    type: 'object',
    properties: {
      a: { type: 'integer', description: 'First number' },
      b: { type: 'integer', description: 'Second number' },
    },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  async execute(args): Promise<ToolResult> {
    const { a, b } = (args ?? {}) as { a?: unknown; b?: unknown };
    // The upstream's arguments are i64: integers only, and the sum as text.
    if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b))
      return { ok: false, error: 'a and b must be integers' };
    return { ok: true, data: String((a as number) + (b as number)) };
  },
};
