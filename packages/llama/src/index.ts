export type { LlamaChatClient, LlamaChatClientOptions } from './client/llama-chat-client.js';
export { loadLlamaChatClient } from './client/llama-chat-client.js';
export type { LlamaPlugin } from './llama-plugin.js';
export { llamaPlugin } from './llama-plugin.js';
export type { GpuChoice } from './model/model-cache.js';
