import { describe, expect, it } from 'vitest';
import { builtinToolSchema } from './builtin-tool-schemas.js';
import { createFileTool, FILE_TOOL_NAMES, type FileToolName } from './index.js';

const NAMES: FileToolName[] = [...FILE_TOOL_NAMES, 'apply_patch'];

describe('the generated JSON Schemas of the built-in tools', () => {
  it.each(NAMES)(
    '%s: regenerating from zod changes nothing (pnpm --filter @raf/framework tool-schemas:write)',
    (name) => {
      const tool = createFileTool(name) as unknown as { convertParameters(): unknown };
      expect(builtinToolSchema(name)).toEqual(tool.convertParameters());
    },
  );

  it('a tool sends the generated schema, a fresh copy each time', () => {
    const [a, b] = [createFileTool('read_file'), createFileTool('read_file')];
    expect(a.parameters).toEqual(builtinToolSchema('read_file'));
    expect(a.parameters).not.toBe(b.parameters);
    expect(a.parameters).toBe(a.parameters);
  });

  it('knows no other name, inherited keys included', () => {
    expect(builtinToolSchema('lookup')).toBeUndefined();
    expect(builtinToolSchema('constructor')).toBeUndefined();
  });
});
