import {
  ConfigError,
  type Declaration,
  definePlugin,
  type IChatClient,
  type ModelProviderFactory,
  type RafPlugin,
} from '@raf/core';
import { z } from 'zod';
import { A2AChatClient } from './client/a2a-chat-client.js';

/** The plugin, with `close()`: closes the connections of every client it made (the CLI calls it at exit). */
export interface A2APlugin extends RafPlugin {
  close(): Promise<void>;
}

/**
 * `config` of a model declaration with `provider: a2a`, as `@raf/decl` writes it for a
 * `subAgents: - kind: a2a` entry (the URL is `connection.endpoint`, headers `connection.headers`).
 */
const a2aConfigSchema = z.strictObject({
  cardPath: z.string().min(1).optional(),
  allowPrivate: z.array(z.string().min(1)).optional(),
  maxBytes: z.number().int().positive().optional(),
});

const connectionSchema = z.looseObject({
  endpoint: z.string().min(1, 'an a2a sub-agent needs the agent URL (url:)'),
  headers: z.record(z.string(), z.string()).optional(),
});

function issuesText(error: z.ZodError, prefix: string): string {
  return error.issues
    .map((i) => `${prefix}${i.path.map((p) => `.${String(p)}`).join('')}: ${i.message}`)
    .join('; ');
}

/**
 * Remote A2A agents as the model provider `a2a`: what a `kind: a2a` sub-agent runs on, so the
 * coordinator delegates to it with the same `delegate_task` tools as to a local one. Registers
 * nothing on import: `new DeclAgentBuilder().use(a2aPlugin())` (or `builder.useInstalled()`).
 */
export function a2aPlugin(): A2APlugin {
  const clients = new Set<A2AChatClient>();
  const factory: ModelProviderFactory = (decl: Declaration, context): IChatClient => {
    const connection = connectionSchema.safeParse(decl.connection ?? {});
    if (!connection.success) throw new ConfigError(issuesText(connection.error, 'connection'));
    const config = a2aConfigSchema.safeParse(decl.config ?? {});
    if (!config.success) throw new ConfigError(issuesText(config.error, 'config'));
    const client = new A2AChatClient({
      name: String(decl.name ?? 'a2a'),
      url: connection.data.endpoint,
      ...(connection.data.headers && { headers: connection.data.headers }),
      ...config.data,
    });
    // validate/explain build the client (the URL is checked) but never connect: it connects on its first run.
    if (!context.dryRun) clients.add(client);
    return client;
  };
  const plugin = definePlugin({
    specificationVersion: 'v1',
    packageName: '@raf/a2a',
    modelProviders: { a2a: factory },
  });
  return {
    ...plugin,
    async close() {
      const open = [...clients];
      clients.clear();
      await Promise.all(open.map((client) => client.dispose()));
    },
  };
}
