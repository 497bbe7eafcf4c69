const UNITS: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };
const SIZE = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i;

/**
 * `512m`, `1g`, `64KiB`, `1048576` (bytes) → bytes, the Docker-style spelling upstream configs use
 * for `memory_limit`. Binary units: `1m` is 1 MiB. Undefined when the text is no size.
 */
export function parseByteSize(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
  const match = SIZE.exec(value);
  if (!match) return undefined;
  const bytes = Math.floor(Number(match[1]) * (UNITS[(match[2] ?? '').toLowerCase()] ?? 1));
  return bytes > 0 ? bytes : undefined;
}

/** 268435456 → `256m`: how limits are printed back (the way they are written in YAML). */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of [
    ['g', 1024 ** 3],
    ['m', 1024 ** 2],
    ['k', 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}
