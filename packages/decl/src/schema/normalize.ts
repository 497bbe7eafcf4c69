import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { diagnosticAt, type Path, type SourceDocument } from '../load/source-document.js';

/** Spellings that are not plain snake_case of the canonical name. */
const SYNONYMS: Record<string, string> = {
  base_url: 'endpoint',
  baseUrl: 'endpoint',
  baseURL: 'endpoint',
};

// Only in `model.options`: `compression.maxTokens` is a budget of its own.
const OPTION_SYNONYMS: Record<string, string> = {
  maxTokens: 'maxOutputTokens',
  max_tokens: 'maxOutputTokens',
  stop: 'stopSequences',
};

/** Maps whose keys are data (names, JSON Schema, headers), never renamed or aliased. */
export const FREE_FORM = new Set([
  'metadata',
  'parameters',
  'config',
  'sandbox',
  'headers',
  'inputSchema',
  'outputSchema',
  'extra',
  'toolName',
  // Server names, and fields in the `mcp.json` format of other clients.
  'mcpServers',
  // toolPolicy maps: their keys are tool names.
  'routing',
  'promptHints',
]);

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** `maxToolRounds` → `max_tool_rounds`: the upstream spelling of a field. */
export const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** For each normalized object: canonical key → the key as written. */
export type Origins = WeakMap<object, Map<string, string>>;

/**
 * Rewrites every key to its canonical camelCase name (`max_tool_rounds` → `maxToolRounds`,
 * `api_key` → `apiKey`, `base_url` → `endpoint`), and the shorthands `model: gpt-4o` and
 * `template: mustache`. Two spellings of one field are an error.
 */
export function normalizeKeys(
  document: SourceDocument,
  value: unknown,
): { value: unknown; origins: Origins; problems: Diagnostic[] } {
  const origins: Origins = new WeakMap();
  const problems: Diagnostic[] = [];
  const walk = (input: unknown, path: Path, parentKey: string | undefined): unknown => {
    if (Array.isArray(input)) return input.map((item, i) => walk(item, [...path, i], parentKey));
    // A sub-agent is an agent too: its fields take the same shorthands as the root's.
    const local =
      path.length >= 2 && camel(String(path[0])) === 'subAgents' && typeof path[1] === 'number'
        ? path.slice(2)
        : path;
    if (!input || typeof input !== 'object') {
      if (local.length === 1 && local[0] === 'model' && typeof input === 'string') return { id: input };
      if (local.length === 1 && local[0] === 'template' && typeof input === 'string')
        return { format: input };
      return input;
    }
    const out: Record<string, unknown> = {};
    const origin = new Map<string, string>();
    for (const [key, item] of Object.entries(input)) {
      const canonical =
        (parentKey === 'options' && local.length === 2 ? OPTION_SYNONYMS[key] : undefined) ??
        SYNONYMS[key] ??
        camel(key);
      const earlier = origin.get(canonical);
      if (earlier !== undefined) {
        problems.push(
          diagnosticAt(
            document,
            [...path, key],
            `'${key}' and '${earlier}' are the same field; keep one`,
            'error',
            { key: true },
          ),
        );
        continue;
      }
      origin.set(canonical, key);
      out[canonical] = FREE_FORM.has(canonical) ? item : walk(item, [...path, key], canonical);
    }
    origins.set(out, origin);
    return out;
  };
  return { value: walk(value, [], undefined), origins, problems };
}

/** The path as written in the file for a path in the normalized value. */
export function writtenPath(root: unknown, origins: Origins, path: Path): (string | number)[] {
  const out: (string | number)[] = [];
  let node: unknown = root;
  for (const segment of path) {
    if (typeof segment === 'string' && node && typeof node === 'object' && !Array.isArray(node)) {
      out.push(origins.get(node)?.get(segment) ?? segment);
    } else {
      out.push(segment);
    }
    node = node && typeof node === 'object' ? (node as Record<string | number, unknown>)[segment] : undefined;
  }
  return out;
}
