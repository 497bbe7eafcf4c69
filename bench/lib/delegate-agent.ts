// The sub-agent of the delegate benchmark, as its worker process builds it (a `WorkerFactoryRef`
// names this module): a model at `baseURL`, a proxied `ping` and a worker-local `local_ping`.
// Each tool call's duration, measured in the worker, is appended to `timings` (one per line).
import { appendFileSync } from 'node:fs';
import { OpenAICompatibleChatClient, preloadHttp } from '@raf/client';
import { createToolManifest, defineTool, type JSONValue, toolSuccess } from '@raf/core';
import { AgentBuilder, type ChatClientAgent } from '@raf/framework';
import { z } from 'zod';

export interface DelegateAgentOptions {
  name: string;
  baseURL: string;
  timings?: string;
}

export function buildDelegateAgent(options: DelegateAgentOptions): ChatClientAgent {
  const ping = (name: string, local: boolean) =>
    defineTool({
      name,
      description: 'Answers pong.',
      parameters: z.object({ n: z.number() }),
      ...(local && { manifest: createToolManifest({ workerRoutingHint: 'local' }) }),
      execute: async () => toolSuccess('pong'),
    });
  const builder = new AgentBuilder(options.name)
    .chatClient(
      new OpenAICompatibleChatClient({ model: options.name, baseURL: options.baseURL, maxRetries: 0 }),
    )
    .withTools([ping('ping', false), ping('local_ping', true)])
    .maxToolRounds(1000);
  const file = options.timings;
  if (file) builder.withHooks({ onToolEnd: (e) => appendFileSync(file, `${e.name} ${e.durationMs}\n`) });
  return builder.build();
}

export function delegateAgent(options: JSONValue) {
  return { agent: buildDelegateAgent(options as unknown as DelegateAgentOptions) };
}

/** Run by a spare worker while it waits (see the framework's worker). */
export async function warmUp(): Promise<void> {
  await preloadHttp();
}
