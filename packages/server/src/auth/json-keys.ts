/** A key of a JSON text that a plain `JSON.parse` would lose or misread. */
export interface JsonKeyProblem {
  kind: 'duplicate' | 'proto';
  /** The key as decoded (its escapes read): the caller decides whether to show it. */
  key: string;
  /** 1-based line of the key in the text. */
  line: number;
  /** Which key of its object it is (1-based), counting every key written. */
  index: number;
}

/**
 * The first key of `text` (already known to be valid JSON) that appears twice in one object, or
 * is `__proto__`. `JSON.parse` keeps the last of duplicated keys without a word, and a schema
 * check then drops `__proto__`: for a file that maps secrets to owners (a tokens file) both are
 * mistakes to refuse, not to guess about. Keys are compared decoded, so `"\u0061"` is `"a"`.
 * `maxDepth` 1: only the outermost object's keys (deeper values are the schema's to refuse).
 */
export function firstJsonKeyProblem(
  text: string,
  maxDepth = Number.POSITIVE_INFINITY,
): JsonKeyProblem | undefined {
  // One frame per open object (its keys and whether a key comes next) or array (`undefined`).
  const stack: ({ keys: Set<string>; expectKey: boolean; count: number } | undefined)[] = [];
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    else if (c === '{') stack.push({ keys: new Set(), expectKey: true, count: 0 });
    else if (c === '[') stack.push(undefined);
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack.at(-1);
      if (top) top.expectKey = true;
    } else if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      const top = stack.at(-1);
      if (!top?.expectKey || stack.length > maxDepth) continue;
      top.expectKey = false;
      top.count++;
      const key = JSON.parse(text.slice(start, i + 1)) as string;
      if (key === '__proto__') return { kind: 'proto', key, line, index: top.count };
      if (top.keys.has(key)) return { kind: 'duplicate', key, line, index: top.count };
      top.keys.add(key);
    }
  }
  return undefined;
}
