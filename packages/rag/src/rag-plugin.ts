import { resolve } from 'node:path';
import { ConfigError, type Declaration, type PluginBuildContext, type RafPlugin } from '@raf/core';
import { parseAllowList } from '@raf/web/http';
import { type KnowledgeConfig, knowledgeConfigSchema } from './config/knowledge-config.js';
import { OpenAIEmbeddings } from './embed/openai-embeddings.js';
import { KnowledgeContextProvider } from './provider/knowledge-context-provider.js';
import { expandSources } from './source/expand-sources.js';

/** A context name made safe as a file name. */
function fileName(name: string): string {
  return name.replace(/[^\p{L}\p{N}._-]+/gu, '_') || 'knowledge';
}

function embeddingsOf(config: KnowledgeConfig, context: PluginBuildContext): OpenAIEmbeddings | undefined {
  const e = config.embeddings;
  if (e === undefined || e === false || e === 'none') return undefined;
  // The OpenAI key fills in only for OpenAI's own endpoint, as the chat providers do.
  const apiKey = e.apiKey ?? (e.baseURL === undefined ? context.env.OPENAI_API_KEY : undefined);
  return new OpenAIEmbeddings({
    model: e.model,
    ...(e.baseURL !== undefined && { baseURL: e.baseURL }),
    ...(apiKey !== undefined && { apiKey }),
    ...(e.headers !== undefined && { headers: e.headers }),
    ...(e.batchSize !== undefined && { batchSize: e.batchSize }),
    ...(e.dimensions !== undefined && { dimensions: e.dimensions }),
    ...(e.maxRetries !== undefined && { retry: { maxRetries: e.maxRetries } }),
    ...(e.timeoutMs !== undefined && { timeoutMs: e.timeoutMs }),
  });
}

/** `kind: knowledge` from YAML; the config arrives checked against `knowledgeConfigSchema`. */
async function knowledge(
  decl: Declaration,
  context: PluginBuildContext,
): Promise<KnowledgeContextProvider | undefined> {
  const config = (decl.config ?? {}) as KnowledgeConfig;
  const name = decl.name ?? 'knowledge';
  if (config.source === undefined) {
    // As the upstream: a knowledge context without a source is skipped with a warning.
    const message = `knowledge '${name}' has no config.source`;
    if (context.strict) throw new ConfigError(message);
    context.warn(`${message}; it is skipped`);
    return undefined;
  }
  const sources = typeof config.source === 'string' ? [config.source] : config.source;
  // A source that is not there is worth knowing before the first run (an error with --strict).
  const { problems } = await expandSources(sources, context.baseDir, { checkOnly: true });
  if (problems.length > 0 && context.strict)
    throw new ConfigError(`knowledge '${name}': ${problems.join('; ')}`);
  for (const problem of problems) context.warn(`knowledge '${name}': ${problem}`);
  if (config.allowPrivate) {
    try {
      parseAllowList(config.allowPrivate);
    } catch (error) {
      throw new ConfigError(`knowledge '${name}' config.allowPrivate: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const store = resolve(context.baseDir, config.store ?? `.raf/knowledge/${fileName(name)}.db`);
  const embeddings = embeddingsOf(config, context);
  return new KnowledgeContextProvider({
    name,
    sources,
    baseDir: context.baseDir,
    store,
    ...(embeddings && { embeddings }),
    ...(config.chunkSize !== undefined && { chunkSize: config.chunkSize }),
    ...(config.chunkOverlap !== undefined && { chunkOverlap: config.chunkOverlap }),
    ...(config.chunker !== undefined && { chunker: config.chunker }),
    ...(config.topK !== undefined && { topK: config.topK }),
    ...(config.retrieval !== undefined && { retrieval: config.retrieval }),
    ...(config.fusion !== undefined && { fusion: config.fusion }),
    ...(config.documentLimits !== undefined && { documentLimits: config.documentLimits }),
    ...(config.autoRefresh !== undefined && { autoRefresh: config.autoRefresh }),
    ...(config.allowPrivate !== undefined && { allowPrivate: config.allowPrivate }),
    ...(config.maxInjectedChars !== undefined && { maxInjectedChars: config.maxInjectedChars }),
    ...(context.dryRun && { dryRun: true }),
  });
}

/** Registers `kind: knowledge`: `new DeclAgentBuilder().use(ragPlugin())`. */
export function ragPlugin(): RafPlugin {
  return {
    specificationVersion: 'v1',
    packageName: '@raf/rag',
    contextKinds: { knowledge },
    configSchemas: { contexts: { knowledge: knowledgeConfigSchema } },
  };
}
