import { ConfigError } from '../errors/error-classes.js';

/**
 * Where all state lives (SPEC §14.1), parsed from one URL: `memory:`, `file:DIR` (default
 * `.raf`), `sqlite:PATH`, `postgres://…` (or `postgresql://…`). Paths stay as given (relative to
 * the caller's folder).
 */
export type StoreLocation =
  | { kind: 'memory' }
  | { kind: 'file'; directory: string }
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string };

/** The default store: files in `.raf/`. */
export const DEFAULT_STORE_URL = 'file:.raf';

export function parseStoreUrl(url: string): StoreLocation {
  const text = url.trim();
  if (text === 'memory:' || text === 'memory') return { kind: 'memory' };
  if (/^postgres(ql)?:\/\//i.test(text)) return { kind: 'postgres', url: text };
  const file = /^file:(?:\/\/(?=\/))?(.*)$/s.exec(text);
  if (file) return { kind: 'file', directory: file[1] || '.raf' };
  const sqlite = /^sqlite:(?:\/\/(?=\/))?(.+)$/s.exec(text);
  if (sqlite?.[1]) return { kind: 'sqlite', path: sqlite[1] };
  throw new ConfigError(
    `store URL ${JSON.stringify(url)} is not one RAF knows: use file:DIR, sqlite:PATH, postgres://… or memory:`,
  );
}

/** The URL without its password, for messages and logs. */
export function redactStoreUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@]*@/i, '$1:***@');
}
