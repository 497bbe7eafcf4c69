/**
 * How deep tool arguments may nest. A hostile model's `{"a":{"a":…}}` five thousand levels deep
 * parses, but every later `JSON.stringify` (the `--json` line, `raf serve`'s stream and store, a
 * server's request) overflows the stack and ended the process. Real arguments nest a few levels.
 */
export const MAX_ARGUMENT_DEPTH = 100;

/** Whether a parsed JSON value nests deeper than `max` arrays/objects (iterative: no recursion). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop();
    if (!next || next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > max) return true;
    for (const child of Object.values(next.value)) stack.push({ value: child, depth });
  }
  return false;
}
