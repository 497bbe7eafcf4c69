import type { IChatClient } from '@raf/core';
import { AgentBuilder, type ChatClientAgent } from '@raf/framework';
import { getWeather, type WeatherContext } from './quickstart.js';

/**
 * The same weather agent on `@raf/framework`: the agent runs the loop. The run context
 * (`WeatherContext`) reaches the tool typed; `prepareStep` offers the tool for the first model call
 * only, so after one round of lookups the model must answer.
 */
export function buildWeatherAgent(client: IChatClient): ChatClientAgent<WeatherContext> {
  return new AgentBuilder<WeatherContext>('weather')
    .chatClient(client)
    .instructions('You answer weather questions briefly. Use get_weather.')
    .withTool(getWeather)
    .withHooks({
      prepareStep: ({ stepNumber }) => (stepNumber > 0 ? { activeTools: [] } : undefined),
    })
    .build();
}

export interface AgentQuickstartOptions {
  client: IChatClient;
  input?: string;
  units?: WeatherContext['units'];
  write?: (text: string) => void;
  signal?: AbortSignal;
}

export async function runAgentQuickstart(options: AgentQuickstartOptions): Promise<string> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const agent = buildWeatherAgent(options.client);
  let text = '';
  const run = agent.run(options.input ?? 'What is the weather in Tokyo?', {
    context: { units: options.units ?? 'celsius' },
    ...(options.signal && { signal: options.signal }),
  });
  for await (const update of run) {
    if (update.type === 'tool-called') write(`→ ${update.name} → ${JSON.stringify(update.result)}\n`);
    if (update.type === 'text-delta') {
      text += update.delta;
      write(update.delta);
    }
  }
  write('\n');
  return text;
}
