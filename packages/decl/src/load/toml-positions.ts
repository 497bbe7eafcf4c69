import type { Path } from './source-document.js';

export interface Position {
  line: number;
  column: number;
}

/** Where each key and value of a TOML document starts, by path (`["tools", 1, "kind"]`). */
export type TomlPositions = Map<string, { key?: Position; value: Position }>;

export const pathKey = (path: Path): string => JSON.stringify(path);

/**
 * A position index for a TOML document that already parsed (smol-toml gives values, not where
 * they are): tables, arrays of tables, dotted keys, inline tables and arrays, multi-line strings.
 * It only scans, so it stays small; syntax errors are the parser's job.
 */
export function indexTomlPositions(text: string): TomlPositions {
  const positions: TomlPositions = new Map();
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const at = (offset: number): Position => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((lineStarts[mid] as number) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (lineStarts[low] as number) + 1 };
  };
  let pos = 0;
  const skipSpace = (newlines: boolean) => {
    while (pos < text.length) {
      const c = text[pos] as string;
      if (c === ' ' || c === '\t' || c === '\r' || (newlines && c === '\n')) pos++;
      else if (c === '#') while (pos < text.length && text[pos] !== '\n') pos++;
      else break;
    }
  };
  const readString = (): string => {
    const quote = text[pos] as string;
    const triple = text.startsWith(quote.repeat(3), pos);
    const end = triple ? quote.repeat(3) : quote;
    pos += end.length;
    let out = '';
    while (pos < text.length && !text.startsWith(end, pos)) {
      if (quote === '"' && text[pos] === '\\') {
        out += text[pos + 1] ?? '';
        pos += 2;
      } else out += text[pos++];
    }
    pos += end.length;
    // `""""a"""` style: up to two quotes may close a multi-line string.
    while (triple && text[pos] === quote) pos++;
    return out;
  };
  const readKey = (): { path: string[]; start: number } => {
    const path: string[] = [];
    skipSpace(false);
    const start = pos;
    for (;;) {
      skipSpace(false);
      const c = text[pos];
      if (c === '"' || c === "'") path.push(readString());
      else {
        const from = pos;
        while (pos < text.length && /[A-Za-z0-9_-]/.test(text[pos] as string)) pos++;
        path.push(text.slice(from, pos));
      }
      skipSpace(false);
      if (text[pos] !== '.') return { path, start };
      pos++;
    }
  };
  const value = (path: (string | number)[], key?: Position) => {
    skipSpace(false);
    positions.set(pathKey(path), { ...(key && { key }), value: at(pos) });
    const c = text[pos];
    if (c === '"' || c === "'") readString();
    else if (c === '{') {
      pos++;
      for (;;) {
        skipSpace(true);
        if (text[pos] === '}' || pos >= text.length) break;
        const inner = readKey();
        pos++; // '='
        value([...path, ...inner.path], at(inner.start));
        skipSpace(true);
        if (text[pos] === ',') pos++;
      }
      pos++;
    } else if (c === '[') {
      pos++;
      for (let index = 0; ; index++) {
        skipSpace(true);
        if (text[pos] === ']' || pos >= text.length) break;
        value([...path, index]);
        skipSpace(true);
        if (text[pos] === ',') pos++;
      }
      pos++;
    } else {
      while (pos < text.length && !/[,\]}\n#]/.test(text[pos] as string)) pos++;
    }
  };
  // Arrays of tables: the path of each `[[name]]` and how many entries it has so far.
  const arrays = new Map<string, number>();
  const withIndices = (path: string[], isArrayHeader: boolean): (string | number)[] => {
    const out: (string | number)[] = [];
    for (const [i, segment] of path.entries()) {
      out.push(segment);
      const count = arrays.get(pathKey(out));
      if (count !== undefined && !(isArrayHeader && i === path.length - 1)) out.push(count - 1);
    }
    return out;
  };
  let table: (string | number)[] = [];
  while (pos < text.length) {
    skipSpace(true);
    if (pos >= text.length) break;
    if (text[pos] === '[') {
      const isArray = text[pos + 1] === '[';
      const start = at(pos);
      pos += isArray ? 2 : 1;
      const header = readKey();
      pos += isArray ? 2 : 1;
      const base = withIndices(header.path, isArray);
      if (isArray) {
        const count = (arrays.get(pathKey(base)) ?? 0) + 1;
        arrays.set(pathKey(base), count);
        table = [...base, count - 1];
      } else table = base;
      positions.set(pathKey(table), { key: start, value: start });
      continue;
    }
    const key = readKey();
    if (text[pos] !== '=') {
      // Not a key/value line: leave it to the parser, which already accepted the file.
      while (pos < text.length && text[pos] !== '\n') pos++;
      continue;
    }
    pos++;
    value([...table, ...key.path], at(key.start));
  }
  return positions;
}
