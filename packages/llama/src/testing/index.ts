export type { GgufTensor, GgufValue } from './gguf-writer.js';
export { encodeGguf, writeGguf } from './gguf-writer.js';
export type { TinyModelOptions } from './tiny-model.js';
export { tinyModelBytes, writeTinyModel } from './tiny-model.js';
