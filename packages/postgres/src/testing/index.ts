export { findPostgresBin, type PgCluster, postgresSkipReason, startPgCluster } from './pg-cluster.js';
