export { MIGRATIONS, migrate } from './migrations.js';
export type { OpenPostgresStoreOptions, PostgresStore } from './open-postgres-store.js';
export { openPostgresStore } from './open-postgres-store.js';
export { PostgresCheckpointStore } from './postgres-checkpoint-store.js';
export { PostgresGovernanceStore } from './postgres-governance-store.js';
export { PostgresSecretStore } from './postgres-secret-store.js';
export { PostgresSessionStore } from './postgres-session-store.js';
