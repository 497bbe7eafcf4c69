import { ConfigError } from '@raf/core';
import { z } from 'zod';

/** The entry's `approval_mode` (the agent schema checked its shape): `never|always` or per tool. */
const approvalModeSchema = z.union([
  z.enum(['never', 'always']),
  z.object({ always: z.array(z.string()).optional(), never: z.array(z.string()).optional() }),
]);

/** One tool of the entry: its operationId (as the spec says) and its tool name (as the model sees). */
export interface GatedName {
  operationId: string | undefined;
  name: string;
}

/**
 * Which of the entry's tools ask before they run, with `@raf/mcp`'s rules: `always` and `never`
 * apply to every tool; per tool, one in `always` asks, one in `never` does not, and one in neither
 * asks when a `never` list exists (an allow-list of safe calls: fail closed). A listed name no
 * tool has is an error: a misspelt `always: [bookVisit]` would otherwise let it run unasked.
 */
export function gatedTools(mode: unknown, tools: readonly GatedName[], where: string): boolean[] {
  if (mode === undefined) return tools.map(() => false);
  const parsed = approvalModeSchema.safeParse(mode);
  if (!parsed.success) {
    throw new ConfigError(
      'kind: openapi approval_mode: must be one of "never", "always", or { always: [tool names], never: [tool names] }',
    );
  }
  const value = parsed.data;
  if (value === 'never' || value === 'always') return tools.map(() => value === 'always');
  const known = new Set(tools.flatMap((t) => (t.operationId ? [t.operationId, t.name] : [t.name])));
  const unknown = [...(value.always ?? []), ...(value.never ?? [])].filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new ConfigError(
      `kind: openapi approval_mode: ${where} has no tool ${unknown.map((n) => `"${n}"`).join(', ')} (tools: ${tools.map((t) => t.name).join(', ')})`,
    );
  }
  const listed = (names: string[] | undefined, tool: GatedName) =>
    names !== undefined &&
    (names.includes(tool.name) || (tool.operationId !== undefined && names.includes(tool.operationId)));
  return tools.map((tool) => {
    if (listed(value.always, tool)) return true;
    if (listed(value.never, tool)) return false;
    return value.never !== undefined;
  });
}
