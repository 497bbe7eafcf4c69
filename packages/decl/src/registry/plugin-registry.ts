import {
  type ContextKindFactory,
  definePlugin,
  type ModelProviderFactory,
  type RafPlugin,
  type ToolKindFactory,
} from '@raf/core';
import { suggest } from '../diagnostics/diagnostic.js';

/** Kinds that live in extension packages: the install hint for a YAML that uses one unregistered. */
export const EXTENSION_PACKAGES: Readonly<Record<string, { package: string; plugin: string }>> = {
  web: { package: '@raf/web', plugin: 'webPlugin' },
  mcp: { package: '@raf/mcp', plugin: 'mcpPlugin' },
  knowledge: { package: '@raf/rag', plugin: 'ragPlugin' },
  wiki: { package: '@raf/wiki', plugin: 'wikiPlugin' },
  code: { package: '@raf/sandbox', plugin: 'sandboxPlugin' },
  openapi: { package: '@raf/openapi', plugin: 'openapiPlugin' },
  llama: { package: '@raf/llama', plugin: 'llamaPlugin' },
  gguf: { package: '@raf/llama', plugin: 'llamaPlugin' },
  lm: { package: '@raf/llama', plugin: 'llamaPlugin' },
  local: { package: '@raf/llama', plugin: 'llamaPlugin' },
};

type Category = 'tool kind' | 'context kind' | 'model provider';

/** Kinds of the upstream schema that this version does not build yet: said plainly, not "unknown". */
const NOT_YET: Readonly<Record<string, string>> = {
  memory: 'super-brain memory is not available in this version yet',
  bundle: 'the knowledge bundle (super-brain memory) is not available in this version yet',
};

/** The kinds this agent can build: the built-ins plus each plugin registered with `use()`. */
export class PluginRegistry {
  private readonly tools = new Map<string, ToolKindFactory>();
  private readonly expansions = new Map<string, readonly string[]>();
  private readonly contexts = new Map<string, ContextKindFactory>();
  private readonly providers = new Map<string, ModelProviderFactory>();
  private readonly plugins: RafPlugin[] = [];

  use(plugin: RafPlugin): this {
    definePlugin(plugin);
    this.plugins.push(plugin);
    for (const [kind, factory] of Object.entries(plugin.toolKinds ?? {})) this.tools.set(kind, factory);
    for (const [kind, names] of Object.entries(plugin.toolExpansions ?? {})) this.expansions.set(kind, names);
    for (const [kind, factory] of Object.entries(plugin.contextKinds ?? {})) this.contexts.set(kind, factory);
    for (const [name, factory] of Object.entries(plugin.modelProviders ?? {}))
      this.providers.set(name, factory);
    return this;
  }

  get packages(): string[] {
    return this.plugins.map((p) => p.packageName);
  }

  toolKind(kind: string): ToolKindFactory | undefined {
    return this.tools.get(kind);
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
  missing(category: Category, kind: string): string {
    const notYet = category === 'context kind' ? NOT_YET[kind] : undefined;
    if (notYet) return `context kind "${kind}": ${notYet}`;
    const extension = EXTENSION_PACKAGES[kind];
    if (extension) {
      return `${category} "${kind}" needs ${extension.package} (pnpm add ${extension.package}; builder.use(${extension.plugin}()))`;
    }
    const known =
      category === 'tool kind' ? [...this.known(category), 'function', 'custom'] : this.known(category);
    const hint = suggest(kind, [...known, ...Object.keys(EXTENSION_PACKAGES)]);
    return `unknown ${category} "${kind}"${hint ? ` (did you mean "${hint}"?)` : ''}; known: ${known.sort().join(', ')}`;
  }
}
