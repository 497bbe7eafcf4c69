import {
  type ContextKindFactory,
  definePlugin,
  type ModelProviderFactory,
  type RafPlugin,
  type ToolKindFactory,
} from '@raf/core';
import type { ZodType } from 'zod';
import { suggest } from '../diagnostics/diagnostic.js';
import { installCommand } from './install-hint.js';
import { locateExtension } from './locate-extension.js';

type Category = 'tool kind' | 'context kind' | 'model provider';

/**
 * Kinds that live in extension packages: the install hint for a YAML that uses one unregistered,
 * and the "known kinds" of an error message (with the package that has each).
 */
export const EXTENSION_PACKAGES: Readonly<
  Record<string, { package: string; plugin: string; categories: readonly Category[] }>
> = {
  web: { package: '@raf/web', plugin: 'webPlugin', categories: ['tool kind'] },
  mcp: { package: '@raf/mcp', plugin: 'mcpPlugin', categories: ['tool kind', 'context kind'] },
  knowledge: { package: '@raf/rag', plugin: 'ragPlugin', categories: ['context kind'] },
  wiki: { package: '@raf/wiki', plugin: 'wikiPlugin', categories: ['context kind'] },
  code: { package: '@raf/sandbox', plugin: 'sandboxPlugin', categories: ['tool kind'] },
  openapi: { package: '@raf/openapi', plugin: 'openapiPlugin', categories: ['tool kind'] },
  llama: { package: '@raf/llama', plugin: 'llamaPlugin', categories: ['model provider'] },
  'ai-sdk': { package: '@raf/ai-sdk', plugin: 'aiSdkPlugin', categories: ['model provider'] },
  gguf: { package: '@raf/llama', plugin: 'llamaPlugin', categories: ['model provider'] },
  lm: { package: '@raf/llama', plugin: 'llamaPlugin', categories: ['model provider'] },
  local: { package: '@raf/llama', plugin: 'llamaPlugin', categories: ['model provider'] },
  a2a: { package: '@raf/a2a', plugin: 'a2aPlugin', categories: ['model provider'] },
};

/**
 * What a kind of an extension that is not registered needs: the package to install when it is not
 * installed (in the user's package manager), the registration when it is.
 */
export function needsExtension(
  extension: { package: string; plugin: string },
  projectFolder: string = process.cwd(),
): string {
  const use = `builder.use(${extension.plugin}())`;
  if (locateExtension(extension.package, projectFolder))
    return `needs ${extension.package}, which is installed but not registered (${use} or builder.useInstalled())`;
  return `needs ${extension.package} (${installCommand(extension.package, projectFolder)}; ${use})`;
}

/** The kinds this agent can build: the built-ins plus each plugin registered with `use()`. */
export class PluginRegistry {
  private readonly tools = new Map<string, ToolKindFactory>();
  private readonly expansions = new Map<string, readonly string[]>();
  private readonly contexts = new Map<string, ContextKindFactory>();
  private readonly providers = new Map<string, ModelProviderFactory>();
  private readonly schemas = new Map<string, () => ZodType | undefined>();
  private readonly owners = new Map<string, string>();
  private readonly plugins: RafPlugin[] = [];
  /** Where the agent file is: the project whose installed packages the missing-kind errors look at. */
  projectFolder: string | undefined;

  use(plugin: RafPlugin): this {
    definePlugin(plugin);
    this.plugins.push(plugin);
    for (const [kind, factory] of Object.entries(plugin.toolKinds ?? {})) {
      this.tools.set(kind, factory);
      this.owners.set(kind, plugin.packageName);
    }
    // Read when a `config:` is checked, not here: a plugin may build its schemas on first read.
    const { tools, contexts } = plugin.configSchemas ?? {};
    for (const kind of Object.keys(tools ?? {})) this.schemas.set(`tool:${kind}`, () => tools?.[kind]);
    for (const kind of Object.keys(contexts ?? {}))
      this.schemas.set(`context:${kind}`, () => contexts?.[kind]);
    for (const [kind, names] of Object.entries(plugin.toolExpansions ?? {})) this.expansions.set(kind, names);
    for (const [kind, factory] of Object.entries(plugin.contextKinds ?? {})) this.contexts.set(kind, factory);
    for (const [name, factory] of Object.entries(plugin.modelProviders ?? {}))
      this.providers.set(name, factory);
    return this;
  }

  get packages(): string[] {
    return this.plugins.map((p) => p.packageName);
  }

  /** The plugins registered, in order (a sub-agent's worker registers them again). */
  get registered(): readonly RafPlugin[] {
    return this.plugins;
  }

  /** The plugin that builds a kind (the last one registered for it wins, as its factory does). */
  pluginOf(category: Category, kind: string): RafPlugin | undefined {
    const field =
      category === 'tool kind'
        ? 'toolKinds'
        : category === 'context kind'
          ? 'contextKinds'
          : 'modelProviders';
    for (let i = this.plugins.length - 1; i >= 0; i--) {
      const plugin = this.plugins[i];
      if (plugin?.[field]?.[kind]) return plugin;
    }
    return undefined;
  }

  toolKind(kind: string): ToolKindFactory | undefined {
    return this.tools.get(kind);
  }

  /** The package whose plugin builds this tool kind. */
  toolOwner(kind: string): string | undefined {
    return this.owners.get(kind);
  }

  /** The `config:` schema of a tool or context kind, when its plugin gives one. */
  configSchema(category: 'tool kind' | 'context kind', kind: string): ZodType | undefined {
    return this.schemas.get(`${category === 'tool kind' ? 'tool' : 'context'}:${kind}`)?.();
  }

  expansion(kind: string): readonly string[] | undefined {
    return this.expansions.get(kind);
  }

  contextKind(kind: string): ContextKindFactory | undefined {
    return this.contexts.get(kind);
  }

  modelProvider(name: string): ModelProviderFactory | undefined {
    return this.providers.get(name);
  }

  known(category: Category): string[] {
    const map =
      category === 'tool kind' ? this.tools : category === 'context kind' ? this.contexts : this.providers;
    return [...map.keys()];
  }

  /** Why a kind cannot be built: the package to install, or the kinds that exist. */
  /** A kind written in the wrong list: `tools: [{kind: wiki}]` is a context, not a tool. */
  private otherSection(category: Category, kind: string): string | undefined {
    if (category === 'model provider') return undefined;
    const other: Category = category === 'tool kind' ? 'context kind' : 'tool kind';
    const known =
      other === 'tool kind' ? this.tools.has(kind) : this.contexts.has(kind) || kind === 'history';
    if (!known && !EXTENSION_PACKAGES[kind]?.categories.includes(other)) return undefined;
    const list = other === 'tool kind' ? 'tools' : 'contexts';
    return `"${kind}" is a ${other}, not a ${category}: declare it under \`${list}:\` (${list}: [{ kind: ${kind} }])`;
  }

  missing(category: Category, kind: string): string {
    const extension = EXTENSION_PACKAGES[kind];
    if (extension?.categories.includes(category))
      return `${category} "${kind}" ${needsExtension(extension, this.projectFolder)}`;
    const elsewhere = this.otherSection(category, kind);
    if (elsewhere) return elsewhere;
    const known =
      category === 'tool kind'
        ? [...this.known(category), 'function', 'custom']
        : category === 'context kind'
          ? [...this.known(category), 'history']
          : this.known(category);
    const extensions = Object.entries(EXTENSION_PACKAGES)
      .filter(([name, e]) => e.categories.includes(category) && !known.includes(name))
      .map(([name, e]) => `${name} (${e.package})`)
      .sort();
    const hint = suggest(kind, [...known, ...Object.keys(EXTENSION_PACKAGES)]);
    return [
      `unknown ${category} "${kind}"${hint ? ` (did you mean "${hint}"?)` : ''}; known: ${known.sort().join(', ')}`,
      ...(extensions.length ? [`with extensions: ${extensions.join(', ')}`] : []),
    ].join('; ');
  }
}
