import { type Diagnostic, suggest } from '../diagnostics/diagnostic.js';
import { diagnosticAt, type Path, type SourceDocument } from '../load/source-document.js';
import { connectionSchema, modelOptionsSchema } from './agent-schema.js';
import { type Origins, writtenPath } from './normalize.js';

type Mapping = Record<string, unknown>;

const isMapping = (value: unknown): value is Mapping =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Older upstream tool kinds (its docs and fixtures) and what they mean now. */
const TOOL_KIND_ALIASES: Readonly<Record<string, { kind: string; name: string }>> = {
  web_search: { kind: 'web', name: 'web_search' },
  web_fetch: { kind: 'web', name: 'web_fetch' },
  code_interpreter: { kind: 'code', name: 'code_interpreter' },
};

const OPTION_KEYS = Object.keys(modelOptionsSchema.shape);
/** Fields of the agent itself that a file may mistakenly write under `model.options`. */
const AGENT_LEVEL_KEYS = ['instructions', 'tools', 'contexts', 'subAgents', 'maxToolRounds'];
const CONNECTION_KEYS = Object.keys(connectionSchema.shape);

/** A value with its keys as written (normalization camel-cased them; a request body wants them verbatim). */
function asWritten(value: unknown, origins: Origins): unknown {
  if (Array.isArray(value)) return value.map((item) => asWritten(item, origins));
  if (!isMapping(value)) return value;
  const origin = origins.get(value);
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [origin?.get(key) ?? key, asWritten(item, origins)]),
  );
}

/**
 * Rewrites the upstream spellings that still parse there, each with a warning: tool kinds
 * `web_search`/`web_fetch`, `auth_mode: key|entra_id`, and unknown keys of `model.options` (sent in
 * the request body) and of `connection` (string values become HTTP headers, as upstream). Runs on
 * the normalized value, before the schema; never logs a value.
 */
export function applyUpstreamCompat(
  document: SourceDocument,
  root: Mapping,
  origins: Origins,
  /** Where `root` is in the file, as written (a sub-agent: `['subAgents', 0]`). */
  prefix: Path = [],
): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const at = (path: Path, message: string, severity: Diagnostic['severity'] = 'warning', key = true) =>
    problems.push(
      diagnosticAt(document, [...prefix, ...writtenPath(root, origins, path)], message, severity, { key }),
    );
  const written = (node: object, key: string) => origins.get(node)?.get(key) ?? key;

  if (Array.isArray(root.tools)) {
    for (const [index, entry] of root.tools.entries()) {
      if (!isMapping(entry) || typeof entry.kind !== 'string') continue;
      const alias = TOOL_KIND_ALIASES[entry.kind];
      if (!alias) continue;
      const renamed = typeof entry.name === 'string' && entry.name !== alias.name ? entry.name : undefined;
      at(
        ['tools', index, 'kind'],
        `kind: ${entry.kind} is deprecated; it means kind: ${alias.kind}, name: ${alias.name}${renamed ? ` (the name '${renamed}' is replaced)` : ''}`,
        'warning',
        false,
      );
      entry.kind = alias.kind;
      entry.name = alias.name;
    }
  }

  const model = root.model;
  if (!isMapping(model)) return problems;
  const connection = model.connection;
  if (isMapping(connection) && 'authMode' in connection) {
    const spelled = written(connection, 'authMode');
    const value = connection.authMode;
    const mode = typeof value === 'string' ? value.toLowerCase().replace(/[-_]/g, '') : undefined;
    if (mode === 'key' || mode === 'entraid' || mode === 'entra') {
      at(
        ['model', 'connection', 'authMode'],
        `${spelled} is deprecated (the upstream docs' spelling) and ignored: ${
          mode === 'key'
            ? 'an api_key is used when given'
            : 'Entra ID is not supported; for a bearer token from the environment use kind: oauth (tokenEnvVar)'
        }`,
      );
      delete connection.authMode;
    } else if ((mode === 'user' || mode === 'system') && !('authenticationMode' in connection)) {
      connection.authenticationMode = mode;
      delete connection.authMode;
    } else {
      at(
        ['model', 'connection', 'authMode'],
        `${spelled} must be key or entra_id (deprecated), or use authentication_mode: user|system`,
        'error',
        false,
      );
      delete connection.authMode;
    }
  }
  if (isMapping(connection)) {
    const headers: Record<string, string> = {};
    for (const key of Object.keys(connection)) {
      const value = connection[key];
      if (CONNECTION_KEYS.includes(key) || typeof value !== 'string') continue;
      const name = written(connection, key);
      const hint = suggest(name, [...CONNECTION_KEYS, 'api_key', 'base_url', 'auth_mode']);
      at(
        ['model', 'connection', key],
        `'${name}' is not a connection field; it is sent as the HTTP header '${name}'${hint ? ` (did you mean '${hint}'?)` : ''}`,
      );
      headers[name] = value;
      delete connection[key];
    }
    if (Object.keys(headers).length > 0) {
      const explicit = isMapping(connection.headers) ? connection.headers : {};
      connection.headers = { ...headers, ...explicit };
    }
  }
  const options = model.options;
  if (isMapping(options)) {
    const extra: Mapping = {};
    for (const key of Object.keys(options)) {
      if (OPTION_KEYS.includes(key)) continue;
      const name = written(options, key);
      if (AGENT_LEVEL_KEYS.includes(key)) {
        // An upstream docs example puts `instructions` under `[model.options]`; sent as a body
        // field it would be lost (or change the request), so it is refused where it stands.
        at(
          ['model', 'options', key],
          `'${name}' belongs at the top level of the agent file, not under model.options`,
          'error',
        );
        delete options[key];
        continue;
      }
      const hint = suggest(name, OPTION_KEYS);
      at(
        ['model', 'options', key],
        `'${name}' is not a known model option; it is sent as-is in the request body${hint ? ` (did you mean '${hint}'?)` : ''}`,
      );
      extra[name] = asWritten(options[key], origins);
      delete options[key];
    }
    if (Object.keys(extra).length > 0) {
      const explicit = isMapping(options.extra) ? options.extra : {};
      options.extra = { ...extra, ...explicit };
    }
  }
  return problems;
}
