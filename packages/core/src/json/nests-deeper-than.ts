/**
 * Whether a parsed JSON value nests deeper than `max` arrays/objects (the root object is level 1).
 * Walked without recursion: a hostile model's or server's value thousands of levels deep parses,
 * but every later recursive walk (`JSON.stringify`, a schema) overflows the stack; callers refuse
 * or drop such a value before one runs.
 */
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
