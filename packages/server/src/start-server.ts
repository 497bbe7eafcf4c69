import type { RafStore } from '@raf/framework';
import { healthRoutes, v1Routes } from './api/v1-routes.js';
import type { TenantTokens } from './auth/tenant-tokens.js';
import type { RunStore } from './events/run-store.js';
import { ServerApp, type ServerAppOptions } from './http/app.js';
import { mountProtocols, type ProtocolOptions } from './protocols/mount-protocols.js';
import type { DurableRunHost } from './runs/durable-runs.js';
import { type RunLimits, RunRegistry } from './runs/run-registry.js';
import { type ServedAgent, ServedAgents } from './runs/served-agents.js';

export interface CreateServerOptions extends Omit<ServerAppOptions, 'registry' | 'tokens'> {
  agents: readonly ServedAgent[];
  /** Sessions (`createStore(url)`); closed by the caller. */
  store: RafStore;
  /** Runs and events (`openRunStore(url)`); closed by the caller. */
  runs: RunStore;
  tokens: TenantTokens;
  limits?: RunLimits;
  /** The protocol endpoints (chat, AG-UI, A2A, MCP): their settings. */
  protocols?: ProtocolOptions;
  /** Durable runs (`raf serve --durable`): see `RunRegistryOptions.durable`. */
  durable?: DurableRunHost;
}

/** The session id `/readyz` looks up (none has it: the lookup only proves the store answers). */
const READY_PROBE_ID = 'raf-readyz-probe';

/**
 * The server with the `/v1` API, `/healthz` and `/readyz` mounted; mount protocol handlers on the
 * returned app (`app.mount('/v1/agents', …)` is taken: mount under a longer prefix or elsewhere),
 * then `listen()`.
 */
export function createServer(options: CreateServerOptions): ServerApp {
  const { agents, store, runs, tokens, limits, protocols, durable, ...rest } = options;
  const registry = new RunRegistry({
    agents: new ServedAgents(agents),
    store,
    runs,
    ...(limits && { limits }),
    ...(durable && { durable }),
  });
  const app = new ServerApp({ ...rest, registry, tokens });
  app.mount('/v1', v1Routes());
  // One lookup of an id no session has: the store answers (a query, a file read) in time that does
  // not grow with the sessions it holds, as a probe asked every few seconds must.
  const health = healthRoutes(async (signal) => {
    await store.sessions.load(READY_PROBE_ID, { signal });
  }, rest.log);
  app.mount('/healthz', health, { public: true });
  app.mount('/readyz', health, { public: true });
  mountProtocols(app, protocols);
  return app;
}
