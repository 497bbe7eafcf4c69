import { createFileTool, FILE_TOOL_NAMES, type FileToolName } from './index.js';

const NAMES: FileToolName[] = [...FILE_TOOL_NAMES, 'apply_patch'];

/**
 * The text of `builtin-tool-schemas.ts`: each built-in tool's parameters converted from its zod
 * schema once, at build time, rather than in every process that sends the tools to a model.
 * `pnpm --filter @raf/framework tool-schemas:write` writes it; a test checks it is current.
 */
export function renderBuiltinToolSchemas(): string {
  const entries = NAMES.map((name) => {
    const tool = createFileTool(name) as unknown as { convertParameters(): unknown };
    return `  ${name}: ${JSON.stringify(JSON.stringify(tool.convertParameters()))},`;
  });
  return `// Generated from the built-in tools' zod schemas by \`pnpm --filter @raf/framework tool-schemas:write\`
// (render-tool-schemas.ts); builtin-tool-schemas.test.ts fails when it is not current. Do not edit.
import type { JSONSchema } from '@raf/core';

// JSON text: parsing it is the fastest way to build the objects, and each tool gets its own copy.
const SCHEMAS: Readonly<Record<string, string>> = {
${entries.join('\n')}
};

/** A built-in tool's parameters as JSON Schema; undefined for any other name. */
export function builtinToolSchema(name: string): JSONSchema | undefined {
  return Object.hasOwn(SCHEMAS, name) ? (JSON.parse(SCHEMAS[name] as string) as JSONSchema) : undefined;
}
`;
}
