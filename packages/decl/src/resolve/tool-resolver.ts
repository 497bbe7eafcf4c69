import { getErrorMessage, type ITool, type JSONSchema, type PluginBuildContext } from '@raf/core';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { checkConfig } from '../registry/check-config.js';
import type { PluginRegistry } from '../registry/plugin-registry.js';
import type { ToolDecl } from '../schema/agent-schema.js';
import { misplacedEntryFields } from './misplaced-entry-fields.js';

/** Builds a `function`/`custom` tool named in YAML; it receives the entry's `config`. */
export type ToolFactory = (
  config: Record<string, unknown>,
  context: PluginBuildContext,
) => ITool | Promise<ITool>;

export interface ResolvedTool {
  tool: ITool;
  /** Index of the `tools:` entry it came from. */
  index: number;
  decl: ToolDecl;
}

/** Reports a problem at a field of `tools[index]`. */
export type ReportAt = (
  path: (string | number)[],
  message: string,
  severity?: Diagnostic['severity'],
  /** At the key rather than its value (an unknown key). */
  key?: boolean,
) => void;

const FACTORY_KINDS = new Set(['function', 'custom']);

/** The YAML's description and parameters win over the factory's: they are what the model reads. */
function withDeclaredInterface(tool: ITool, decl: ToolDecl): ITool {
  if (decl.description === undefined && decl.parameters === undefined) return tool;
  const described = Object.create(tool) as ITool;
  Object.defineProperty(described, 'description', {
    value: decl.description ?? tool.description,
    enumerable: true,
  });
  Object.defineProperty(described, 'parameters', {
    value: (decl.parameters as JSONSchema | undefined) ?? tool.parameters,
    enumerable: true,
  });
  return described;
}

/** Where a tool came from, to tell one built-in reached twice from two different tools. */
interface Origin {
  index: number;
  /** The package whose tool kind built it; undefined for `function`/`custom` factories. */
  owner: string | undefined;
  expanded: boolean;
}

/**
 * Resolves `tools:` (rule 6 first: an entry without `name` expands to its whole category, e.g.
 * `file` → the 11 file and shell tools), then each entry through its plugin, or through a factory
 * for `function`/`custom`. When two entries reach the same built-in and one of them is an expansion
 * (`kind: file` and `kind: shell` both give `run_command`), one copy is kept and a warning says so;
 * any other duplicate name is an error. Holes (entries that failed the schema) are skipped.
 */
export async function resolveTools(
  decls: readonly (ToolDecl | undefined)[],
  registry: PluginRegistry,
  factories: ReadonlyMap<string, ToolFactory>,
  context: PluginBuildContext,
  strictKeys: boolean,
  report: (index: number, ...rest: Parameters<ReportAt>) => void,
): Promise<ResolvedTool[]> {
  const resolved: ResolvedTool[] = [];
  const seen = new Map<string, Origin>();
  for (const [index, decl] of decls.entries()) {
    if (!decl) continue;
    const misplaced = misplacedEntryFields(decl);
    for (const { field, message } of misplaced) report(index, [field], message, 'error', true);
    if (misplaced.length > 0) continue;
    let tools: ITool[];
    const entryContext = { ...context, warn: (message: string) => report(index, [], message, 'warning') };
    try {
      tools = await resolveOne(decl, index, registry, factories, entryContext, strictKeys, report);
    } catch (error) {
      report(index, decl.name ? ['name'] : ['kind'], getErrorMessage(error));
      continue;
    }
    const origin: Origin = {
      index,
      owner: FACTORY_KINDS.has(decl.kind) ? undefined : registry.toolOwner(decl.kind),
      expanded: decl.name === undefined,
    };
    for (const tool of tools) {
      const earlier = seen.get(tool.name);
      if (earlier === undefined) {
        seen.set(tool.name, origin);
        resolved.push({ tool, index, decl });
        continue;
      }
      const sameBuiltIn =
        earlier.owner !== undefined &&
        earlier.owner === origin.owner &&
        (earlier.expanded || origin.expanded);
      report(
        index,
        decl.name ? ['name'] : ['kind'],
        sameBuiltIn
          ? `'${tool.name}' is already in the tools (from tools[${earlier.index}]); one copy is kept`
          : `duplicate tool name '${tool.name}' (also from tools[${earlier.index}])`,
        sameBuiltIn ? 'warning' : 'error',
      );
    }
  }
  return resolved;
}

async function resolveOne(
  decl: ToolDecl,
  index: number,
  registry: PluginRegistry,
  factories: ReadonlyMap<string, ToolFactory>,
  context: PluginBuildContext,
  strictKeys: boolean,
  report: (index: number, ...rest: Parameters<ReportAt>) => void,
): Promise<ITool[]> {
  const kind = decl.kind;
  if (FACTORY_KINDS.has(kind)) {
    if (!decl.name) {
      report(
        index,
        ['kind'],
        `a ${kind} tool needs a name (the factory registered with builder.registerFactory)`,
      );
      return [];
    }
    const factory = factories.get(decl.name);
    if (!factory) {
      report(
        index,
        ['name'],
        `no factory for ${kind} tool '${decl.name}'; register one with builder.registerFactory('${decl.name}', …) or withTool`,
      );
      return [];
    }
    return [
      withDeclaredInterface(await factory((decl.config ?? {}) as Record<string, unknown>, context), decl),
    ];
  }
  const plugin = registry.toolKind(kind);
  if (!plugin) {
    report(index, ['kind'], registry.missing('tool kind', kind));
    return [];
  }
  let config = decl.config;
  const schema = registry.configSchema('tool kind', kind);
  if (schema && decl.config !== undefined) {
    config = checkConfig(schema, decl.config, strictKeys, (path, message, severity, key) =>
      report(index, ['config', ...path], message, severity, key),
    );
    if (!config) return [];
  }
  const declaration = { ...decl, kind, ...(config && { config }) } as Parameters<typeof plugin>[0];
  const names = decl.name ? [decl.name] : registry.expansion(kind);
  if (!names) return plugin(declaration, context);
  const tools: ITool[] = [];
  for (const name of names) {
    const built = await plugin({ ...declaration, name }, context);
    // A description in YAML names one tool; an expanded category keeps each tool's own.
    tools.push(...(decl.name ? built.map((t) => withDeclaredInterface(t, decl)) : built));
  }
  return tools;
}
