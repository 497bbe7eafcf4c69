export type { SqliteCheckpointStoreOptions } from './sqlite-checkpoint-store.js';
export { SqliteCheckpointStore } from './sqlite-checkpoint-store.js';
