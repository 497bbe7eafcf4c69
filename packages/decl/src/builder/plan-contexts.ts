import { getErrorMessage, type IContextProvider, type PluginBuildContext } from '@raf/core';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { PartialDefinition } from '../load/load-definition.js';
import { checkConfig } from '../registry/check-config.js';
import type { PluginRegistry } from '../registry/plugin-registry.js';
import { MCP_CONTEXT_ENTRY_FIELDS } from '../schema/agent-schema.js';

export interface PlannedProvider {
  provider: IContextProvider;
  /** Index in `contexts:`; undefined for `withContext()` providers and top-level `compression:`. */
  index?: number;
}

type At = (
  path: (string | number)[],
  message: string,
  severity?: Diagnostic['severity'],
  key?: boolean,
) => void;

/**
 * The `contexts:` providers in declaration order (rule 7), each `config` checked against its kind's
 * schema first; then a top-level `compression:`. Two entries with one kind and name are an error.
 * A factory's warnings land on its entry; a factory that returns nothing adds nothing.
 */
export async function planContexts(
  definition: PartialDefinition,
  registry: PluginRegistry,
  context: PluginBuildContext,
  strictKeys: boolean,
  at: At,
): Promise<PlannedProvider[]> {
  const providers: PlannedProvider[] = [];
  const seen = new Map<string, number>();
  // Compression counts tokens the way the top-level `tokenCounter` says, for this model.
  const counting = {
    tokenCounter: definition.tokenCounter?.kind ?? 'estimate',
    ...(definition.model && { model: definition.model.id }),
  };
  for (const [index, decl] of definition.contexts.entries()) {
    if (!decl) continue; // failed the schema: reported already
    const identity = `${decl.kind}\u0000${decl.name ?? ''}`;
    const earlier = seen.get(identity);
    if (earlier !== undefined) {
      at(
        ['contexts', index, decl.name === undefined ? 'kind' : 'name'],
        `contexts[${earlier}] is also kind: ${decl.kind}${decl.name === undefined ? ' without a name' : `, name: ${decl.name}`}; give each its own name`,
      );
      continue;
    }
    seen.set(identity, index);
    // Fail closed: a gate written where no kind reads it must not be dropped with a warning.
    const misplaced =
      decl.kind === 'mcp' ? [] : MCP_CONTEXT_ENTRY_FIELDS.filter((field) => decl[field] !== undefined);
    if (misplaced.length > 0) {
      for (const field of misplaced)
        at(
          ['contexts', index, field],
          `'${field}' beside config applies to kind: mcp; kind: ${decl.kind} takes its settings in config`,
          'error',
          true,
        );
      continue;
    }
    if (decl.kind === 'history') continue; // implicit, always first (rule 3)
    const factory = registry.contextKind(decl.kind);
    if (!factory) {
      at(['contexts', index, 'kind'], registry.missing('context kind', decl.kind));
      continue;
    }
    let config: Record<string, unknown> | undefined = decl.config ?? {};
    const schema = registry.configSchema('context kind', decl.kind);
    if (schema) {
      config = checkConfig(schema, decl.config, strictKeys, (path, message, severity, key) =>
        at(['contexts', index, 'config', ...path], message, severity, key),
      );
      if (!config) continue;
    }
    if (decl.kind === 'compression') config = { ...counting, ...config };
    const entryContext = {
      ...context,
      warn: (message: string) => at(['contexts', index], message, 'warning'),
    };
    try {
      const provider = await factory({ ...decl, config } as never, entryContext);
      if (provider) providers.push({ provider, index });
    } catch (error) {
      at(['contexts', index], getErrorMessage(error));
    }
  }
  const compression = registry.contextKind('compression');
  if (definition.compression && compression) {
    const { kind, ...config } = definition.compression;
    const decl = { kind: 'compression', name: kind, config: { ...counting, strategy: kind, ...config } };
    const entryContext = { ...context, warn: (message: string) => at(['compression'], message, 'warning') };
    try {
      const provider = await compression(decl as never, entryContext);
      if (provider) providers.push({ provider });
    } catch (error) {
      at(['compression'], getErrorMessage(error));
    }
  }
  return providers;
}
