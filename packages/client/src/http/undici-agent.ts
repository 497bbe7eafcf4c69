/// <reference path="./undici-agent-module.d.ts" />
import type { Agent } from 'undici';

type AgentClass = typeof Agent;
type UndiciEntry = typeof import('undici');

let loading: Promise<AgentClass> | undefined;
let loaded: AgentClass | undefined;

/**
 * undici's `Agent`, loaded on the first request, and alone: the package entry also loads fetch,
 * WebSocket, EventSource, caches and mocks, three times the load time (about 70 ms of a fresh
 * process's run on a 2-core machine: `pnpm bench --only cold-run`). The deep path is the module the
 * entry takes `Agent` from; should a release move it, the entry loads instead.
 */
export function loadAgentClass(): Promise<AgentClass> {
  loading ??= import('undici/lib/dispatcher/agent.js')
    .then(
      (module) => module.default,
      () =>
        import('undici').then((module) => {
          // A bundler may hand the CommonJS module back as `default` (the `raf` binary does).
          const entry = 'Agent' in module ? module : (module as { default: UndiciEntry }).default;
          return entry.Agent;
        }),
    )
    .then((agent) => {
      loaded = agent;
      return agent;
    });
  return loading;
}

/** The class once `loadAgentClass` has resolved: a loaded client's requests never await it. */
export function loadedAgentClass(): AgentClass | undefined {
  return loaded;
}
