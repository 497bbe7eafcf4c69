export type { EmbeddingsServer, EmbeddingsServerOptions } from './embeddings-server.js';
export { startEmbeddingsServer } from './embeddings-server.js';
export { hashedEmbedding } from './hashed-embedding.js';
