import type { IChatClient, PluginBuildContext } from '@raf/core';
import type { PluginRegistry } from '../registry/plugin-registry.js';
import type { ModelDecl } from '../schema/agent-schema.js';
import { type NamedConnection, planModel } from './plan-model.js';

type At = (path: (string | number)[], message: string) => void;

/** One model of `model.fallback`, as `inspect` shows the chain. */
export interface FallbackModel {
  provider: string;
  id: string;
}

/**
 * `model.fallback: [{ provider, id, connection? }, …]` (SPEC §15): each model built like the
 * primary one (its problems at `model.fallback[i]`; `--model`/`--base-url` override only the
 * primary), and the agent's client the primary followed by them in order.
 */
export async function planFallbacks(
  primary: IChatClient | undefined,
  model: ModelDecl,
  connections: ReadonlyMap<string, NamedConnection>,
  registry: PluginRegistry,
  context: PluginBuildContext,
  at: At,
): Promise<{ client: IChatClient | undefined; fallback: FallbackModel[] }> {
  const fallback: FallbackModel[] = [];
  const clients: IChatClient[] = [];
  for (const [index, entry] of (model.fallback ?? []).entries()) {
    const planned = await planModel(entry, {}, connections, registry, context, (path, message) =>
      // planModel reports at `model.…`; these are at `model.fallback[i].…`.
      at(['model', 'fallback', index, ...path.slice(1)], message),
    );
    fallback.push({ provider: planned.provider, id: planned.modelId });
    if (planned.client) clients.push(planned.client);
  }
  if (!primary || clients.length === 0) return { client: primary, fallback };
  // Loaded only for a file with a chain: the client package stays off the cold path otherwise.
  const { FallbackChatClient } = await import('@raf/client');
  return { client: new FallbackChatClient([primary, ...clients]), fallback };
}
