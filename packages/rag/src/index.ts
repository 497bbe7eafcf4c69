export type { Chunk, ChunkOptions } from './chunk/chunk.js';
export { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from './chunk/chunk.js';
export { chunkMarkdown } from './chunk/markdown-chunker.js';
export { chunkRecursive } from './chunk/recursive-chunker.js';
export type { KnowledgeConfig } from './config/knowledge-config.js';
export { knowledgeConfigSchema } from './config/knowledge-config.js';
export type { IEmbeddingModel } from './embed/embedding-model.js';
export type { OpenAIEmbeddingsOptions } from './embed/openai-embeddings.js';
export { OpenAIEmbeddings } from './embed/openai-embeddings.js';
export type { EmbeddingRetryOptions } from './embed/retry.js';
export { KnowledgeBase } from './knowledge/knowledge-base.js';
export type {
  ChunkerName,
  KnowledgeBaseOptions,
  KnowledgeHit,
  KnowledgeStats,
  RefreshOptions,
  RefreshReport,
  RetrievalMode,
  SearchOptions,
} from './knowledge/knowledge-types.js';
export type { DocumentFormat } from './load/document.js';
export type { DocumentLimits } from './load/document-limits.js';
export { DEFAULT_DOCUMENT_LIMITS } from './load/document-limits.js';
export type { KnowledgeContextProviderOptions } from './provider/knowledge-context-provider.js';
export { KnowledgeContextProvider } from './provider/knowledge-context-provider.js';
export { ragPlugin } from './rag-plugin.js';
