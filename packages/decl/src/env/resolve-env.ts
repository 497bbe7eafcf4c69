import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { diagnosticAt, type Path, type SourceDocument } from '../load/source-document.js';

export type Environment = Readonly<Record<string, string | undefined>>;

// `${VAR}` anywhere, `$VAR` (upper case, so prices and prose stay literal), `=Env.VAR` as a whole value; `$$` is a `$`.
const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)/g;
const ENV_EXPRESSION = /^=Env\.([A-Za-z_][A-Za-z0-9_]*)$/;
// Free text the model or a tool reads verbatim: never expanded.
const VERBATIM = new Set(['parameters', 'inputSchema', 'outputSchema', 'input_schema', 'output_schema']);

function expand(text: string, env: Environment, missing: string[]): string {
  const whole = ENV_EXPRESSION.exec(text);
  if (whole) {
    const value = env[whole[1] as string];
    if (value === undefined) missing.push(whole[1] as string);
    return value ?? '';
  }
  if (!text.includes('$')) return text;
  return text.replace(REFERENCE, (match, braced: string | undefined, bare: string | undefined) => {
    if (match === '$$') return '$';
    const name = (braced ?? bare) as string;
    const value = env[name];
    if (value === undefined) missing.push(name);
    return value ?? match;
  });
}

/**
 * Replaces `$VAR`, `${VAR}` and `=Env.VAR` in every string of the document. A variable that is not
 * set is an error naming the field; the value is otherwise left as written.
 */
export function resolveEnvironment(
  document: SourceDocument,
  env: Environment,
): { value: unknown; problems: Diagnostic[] } {
  const problems: Diagnostic[] = [];
  const walk = (value: unknown, path: Path): unknown => {
    if (typeof value === 'string') {
      const missing: string[] = [];
      const out = expand(value, env, missing);
      for (const name of missing) {
        problems.push(
          diagnosticAt(document, path, `environment variable ${name} is not set (write $$ for a literal $)`),
        );
      }
      return out;
    }
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, i]));
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [
          key,
          VERBATIM.has(key) ? item : walk(item, [...path, key]),
        ]),
      );
    }
    return value;
  };
  return { value: walk(document.value, []), problems };
}
