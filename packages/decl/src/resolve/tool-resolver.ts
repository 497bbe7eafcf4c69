import { getErrorMessage, type ITool, type JSONSchema, type PluginBuildContext } from '@raf/core';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { PluginRegistry } from '../registry/plugin-registry.js';
import type { ToolDecl } from '../schema/agent-schema.js';

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

/**
 * Resolves `tools:` (rule 6 first: an entry without `name` expands to its whole category, e.g.
 * `file` → the 11 file and shell tools), then each entry through its plugin, or through a factory
 * for `function`/`custom`. Duplicate names are errors.
 */
export async function resolveTools(
  decls: readonly ToolDecl[],
  registry: PluginRegistry,
  factories: ReadonlyMap<string, ToolFactory>,
  context: PluginBuildContext,
  report: (index: number, ...rest: Parameters<ReportAt>) => void,
): Promise<ResolvedTool[]> {
  const resolved: ResolvedTool[] = [];
  const seen = new Map<string, number>();
  for (const [index, decl] of decls.entries()) {
    let tools: ITool[];
    try {
      tools = await resolveOne(decl, index, registry, factories, context, report);
    } catch (error) {
      report(index, decl.name ? ['name'] : ['kind'], getErrorMessage(error));
      continue;
    }
    for (const tool of tools) {
      const earlier = seen.get(tool.name);
      if (earlier !== undefined) {
        report(
          index,
          decl.name ? ['name'] : ['kind'],
          `duplicate tool name '${tool.name}' (also from tools[${earlier}])`,
        );
        continue;
      }
      seen.set(tool.name, index);
      resolved.push({ tool, index, decl });
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
  report: (index: number, ...rest: Parameters<ReportAt>) => void,
): Promise<ITool[]> {
  const kind = decl.kind === 'shell' && decl.name === undefined ? 'shell' : decl.kind;
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
  const declaration = { ...decl, kind } as Parameters<typeof plugin>[0];
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
