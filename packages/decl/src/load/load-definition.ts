import { readFile } from 'node:fs/promises';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { describeIssue, suggest } from '../diagnostics/diagnostic.js';
import { securityKeyOf, securitySettingAround } from '../diagnostics/security-keys.js';
import { type Environment, resolveEnvironment } from '../env/resolve-env.js';
import {
  type AgentDefinition,
  agentDefinitionSchema,
  type ContextDecl,
  contextDeclSchema,
  KNOWN_KEYS,
  type ModelDecl,
  type ToolDecl,
  toolDeclSchema,
} from '../schema/agent-schema.js';
import { normalizeKeys, type Origins, writtenPath } from '../schema/normalize.js';
import { applyUpstreamCompat } from '../schema/upstream-compat.js';
import { classifyDocument } from './document-shape.js';
import {
  diagnosticAt,
  formatOf,
  parseTomlSource,
  parseYamlSource,
  type SourceDocument,
  type SourceFormat,
} from './source-document.js';

export interface LoadOptions {
  /** Named in every diagnostic (default `agent.yaml`). */
  file?: string;
  format?: SourceFormat;
  /** Where `$VAR` comes from (default `process.env`). */
  env?: Environment;
  /** Unknown keys are errors instead of warnings. */
  strict?: boolean;
}

/**
 * The parts of a definition that passed the schema when another part did not, so `validate()`
 * still checks them (a schema error does not hide a missing factory). A failed `tools[i]` or
 * `contexts[i]` is a hole (`undefined`), so indices keep matching the file.
 */
export type PartialDefinition = Omit<AgentDefinition, 'model' | 'tools' | 'contexts'> & {
  model?: ModelDecl;
  tools: (ToolDecl | undefined)[];
  contexts: (ContextDecl | undefined)[];
};

export interface LoadedDefinition {
  /** Set only when the file has no error. */
  definition?: AgentDefinition;
  /** When it has errors: whatever still passed the schema (undefined for a file that is not an agent). */
  partial?: PartialDefinition;
  document?: SourceDocument;
  /**
   * A `kind: workflow` file: its value as written (keys unchanged, `$VAR` resolved), compiled by
   * `@raf/workflow`; `definition` is then unset.
   */
  workflow?: Record<string, unknown>;
  /** The definition as parsed, with positions: for plugins that read their entries. */
  normalized?: unknown;
  origins?: Origins;
  diagnostics: Diagnostic[];
}

// Settings of the built-in contexts, often written one level too high.
const CONTEXT_SETTINGS = new Set([
  'root',
  'roots',
  'policy',
  'directory',
  'allowCommands',
  'network',
  'source',
]);

function unknownFieldMessage(key: string, parent: readonly (string | number)[]): string {
  const canonical = key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
  if (parent[0] === 'contexts' && parent.length === 2) {
    if (CONTEXT_SETTINGS.has(canonical))
      return `unknown field '${key}' (it goes under config: config.${key})`;
    const setting = suggest(canonical, CONTEXT_SETTINGS);
    if (setting) return `unknown field '${key}' (did you mean config.${setting}?)`;
  }
  if (KNOWN_KEYS.includes(canonical)) return `'${key}' does not belong here (wrong nesting?)`;
  const hint = suggest(key, KNOWN_KEYS);
  return `unknown field '${key}'${hint ? ` (did you mean '${hint}'?)` : ''}`;
}

function removeKeys(root: unknown, path: readonly PropertyKey[], keys: readonly string[]): void {
  let node = root as Record<PropertyKey, unknown> | undefined;
  for (const segment of path) node = node?.[segment] as Record<PropertyKey, unknown> | undefined;
  for (const key of keys) if (node) delete node[key];
}

/**
 * Checks a normalized value against the agent schema; unknown keys warn (or fail when strict),
 * except security-relevant ones (`securityKeyOf`), which always fail.
 */
function checkSchema(
  document: SourceDocument,
  normalized: unknown,
  origins: Origins,
  strict: boolean,
): LoadedDefinition {
  const diagnostics: Diagnostic[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    // jitless: one parse per file; generating zod's compiled fast path costs more than it saves.
    const parsed = agentDefinitionSchema.safeParse(normalized, { reportInput: true, jitless: true });
    if (parsed.success) return { definition: parsed.data, document, normalized, origins, diagnostics };
    const unknown = parsed.error.issues.filter((i) => i.code === 'unrecognized_keys');
    const others = parsed.error.issues.filter((i) => i.code !== 'unrecognized_keys');
    for (const issue of unknown) {
      for (const key of (issue as { keys: string[] }).keys) {
        const written = writtenPath(normalized, origins, [...(issue.path as (string | number)[]), key]);
        const name = String(written.at(-1));
        const around = securitySettingAround(issue.path);
        const security = around ?? securityKeyOf(name);
        const message = `${unknownFieldMessage(name, issue.path as (string | number)[])}${
          around
            ? `: an unknown key inside ${around} would be dropped, leaving the setting looser than written`
            : security
              ? `: a misspelt or misplaced ${security} would leave the default in force`
              : ''
        }`;
        diagnostics.push(
          diagnosticAt(document, written, message, strict || security ? 'error' : 'warning', { key: true }),
        );
      }
      removeKeys(normalized, issue.path, (issue as { keys: string[] }).keys);
    }
    if (attempt === 0 && unknown.length > 0 && others.length === 0 && !strict) continue;
    for (const issue of others) {
      const written = writtenPath(normalized, origins, issue.path as (string | number)[]);
      diagnostics.push(diagnosticAt(document, written, describeIssue(issue)));
    }
    return { document, normalized, origins, diagnostics };
  }
  return { document, normalized, origins, diagnostics };
}

/** Each field on its own: what parses is kept (defaults fill the rest), each failed list entry is a hole. */
function salvage(root: Record<string, unknown>): PartialDefinition {
  const out: Record<string, unknown> = {};
  const entries = <T>(list: unknown, schema: { safeParse(v: unknown): { success: boolean; data?: T } }) =>
    (Array.isArray(list) ? list : []).map((entry) => schema.safeParse(entry).data);
  for (const [key, schema] of Object.entries(agentDefinitionSchema.shape)) {
    if (key === 'tools') out.tools = entries(root.tools, toolDeclSchema);
    else if (key === 'contexts') out.contexts = entries(root.contexts, contextDeclSchema);
    else {
      const parsed = schema.safeParse(root[key]);
      const value = parsed.success ? parsed.data : schema.safeParse(undefined).data;
      if (value !== undefined) out[key] = value;
    }
  }
  return { kind: 'prompt', name: '', ...out } as PartialDefinition;
}

/** Parses, resolves the environment and checks the schema, collecting every problem at once. */
export function loadDefinitionFromDocument(
  document: SourceDocument,
  options: LoadOptions = {},
): LoadedDefinition {
  const env = resolveEnvironment(document, options.env ?? process.env);
  const normalized = normalizeKeys(document, env.value);
  const root = normalized.value;
  if (!root || typeof root !== 'object' || Array.isArray(root)) {
    return {
      document,
      diagnostics: [diagnosticAt(document, [], 'an agent file must be a mapping (name:, model:, …)')],
    };
  }
  const mapping = root as Record<string, unknown>;
  const shape = classifyDocument(document, mapping, normalized.origins);
  if (shape) return { document, diagnostics: [shape] };
  if (mapping.kind === 'workflow') {
    return {
      document,
      workflow: env.value as Record<string, unknown>,
      normalized: root,
      origins: normalized.origins,
      diagnostics: [...env.problems, ...normalized.problems],
    };
  }
  const compat = applyUpstreamCompat(document, mapping, normalized.origins);
  const subAgents = Array.isArray(mapping.subAgents) ? mapping.subAgents : [];
  for (const [index, sub] of subAgents.entries()) {
    if (!sub || typeof sub !== 'object' || Array.isArray(sub)) continue;
    const prefix = writtenPath(root, normalized.origins, ['subAgents', index]);
    compat.push(...applyUpstreamCompat(document, sub as Record<string, unknown>, normalized.origins, prefix));
  }
  const checked = checkSchema(document, root, normalized.origins, options.strict ?? false);
  const diagnostics = [...env.problems, ...normalized.problems, ...compat, ...checked.diagnostics];
  for (const [index, sub] of subAgents.entries()) {
    const nested = (sub as { subAgents?: unknown } | null)?.subAgents;
    if (Array.isArray(nested) && nested.length > 0) {
      diagnostics.push(
        diagnosticAt(
          document,
          writtenPath(root, normalized.origins, ['subAgents', index, 'subAgents']),
          'sub-agents cannot have sub-agents of their own (nesting is not supported, as upstream)',
          'error',
          { key: true },
        ),
      );
    }
  }
  if (!diagnostics.some((d) => d.severity === 'error')) return { ...checked, diagnostics };
  return {
    ...checked,
    definition: undefined,
    partial: checked.definition ?? salvage(mapping),
    diagnostics,
  };
}

export async function loadDefinitionFromText(
  text: string,
  options: LoadOptions = {},
): Promise<LoadedDefinition> {
  const file = options.file ?? 'agent.yaml';
  const format = options.format ?? formatOf(file) ?? 'yaml';
  const parsed = format === 'toml' ? await parseTomlSource(text, file) : parseYamlSource(text, file);
  if (!parsed.document) return { diagnostics: parsed.problems };
  return loadDefinitionFromDocument(parsed.document, options);
}

/** Why an agent file could not be read, in words (by Node's error code). */
const READ_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  ENOTDIR: 'no such file (a folder on its path is a file)',
  EISDIR: 'is a folder, not an agent file',
  EACCES: 'cannot read it: permission denied',
  EPERM: 'cannot read it: permission denied',
  ENAMETOOLONG: 'cannot read it: the file name is too long',
  ELOOP: 'cannot read it: a loop of symbolic links',
};

export async function loadDefinitionFromFile(
  path: string,
  options: Omit<LoadOptions, 'file'> = {},
): Promise<LoadedDefinition> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Node's own text repeats the absolute path the diagnostic already names.
    const message = (code && READ_FAILURES[code]) ?? `cannot read it: ${(error as Error).message}`;
    return { diagnostics: [{ file: path, line: 1, column: 1, path: '', message, severity: 'error' }] };
  }
  const format = options.format ?? formatOf(path);
  if (!format) {
    return {
      diagnostics: [
        {
          file: path,
          line: 1,
          column: 1,
          path: '',
          message: 'unknown file extension; use .yaml, .yml, .json or .toml',
          severity: 'error',
        },
      ],
    };
  }
  return loadDefinitionFromText(text, { ...options, file: path, format });
}

/** An in-code definition: positions are not known (line 1). */
export function loadDefinitionFromObject(value: unknown, options: LoadOptions = {}): LoadedDefinition {
  const file = options.file ?? '(object)';
  return loadDefinitionFromDocument({ file, value, locate: () => ({ line: 1, column: 1 }) }, options);
}
