import {
  assistantMessage,
  type ChatMessage,
  collectAgentResponse,
  defineTool,
  type IChatClient,
  serializeToolResult,
  systemMessage,
  type ToolExecutionContext,
  toolFailure,
  toolMessage,
  toolSuccess,
  toToolDefinition,
  userMessage,
} from '@raf/core';
import { z } from 'zod';

const FORECASTS: Record<string, { sky: string; celsius: number }> = {
  tokyo: { sky: 'sunny', celsius: 18 },
  paris: { sky: 'light rain', celsius: 11 },
  oslo: { sky: 'snow', celsius: -3 },
};

/** The run context the weather tool reads: who asks, in which units. */
export interface WeatherContext {
  units: 'celsius' | 'fahrenheit';
}

export const getWeather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string().describe('City name, e.g. Tokyo') }),
  // The annotation types the run context: `context.units` is checked by the compiler.
  execute: ({ city }, { context }: ToolExecutionContext<WeatherContext>) => {
    const found = FORECASTS[city.toLowerCase()];
    if (!found) return toolFailure(`No forecast for ${city}`);
    const temperature =
      context.units === 'fahrenheit' ? `${Math.round((found.celsius * 9) / 5 + 32)}°F` : `${found.celsius}°C`;
    return toolSuccess({ city, forecast: `${found.sky}, ${temperature}` });
  },
});

export interface QuickstartOptions {
  client: IChatClient;
  input?: string;
  write?: (text: string) => void;
  signal?: AbortSignal;
}

/**
 * One question, answered by a model that may call `get_weather`. The tool loop is written out by
 * hand here; `@raf/framework`'s agent runs it for you.
 */
export async function runQuickstart(options: QuickstartOptions): Promise<string> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const signal = options.signal ?? new AbortController().signal;
  const messages: ChatMessage[] = [
    systemMessage('You answer weather questions briefly. Use get_weather.'),
    userMessage(options.input ?? 'What is the weather in Tokyo?'),
  ];
  for (let round = 0; round < 4; round++) {
    const response = await collectAgentResponse(
      options.client.run(messages, { tools: [toToolDefinition(getWeather)], signal }),
      { onUpdate: (update) => update.type === 'text-delta' && write(update.delta) },
    );
    if (response.toolCalls.length === 0) {
      write('\n');
      return response.text;
    }
    messages.push(assistantMessage(response.text, response.toolCalls));
    for (const call of response.toolCalls) {
      const context: WeatherContext = { units: 'celsius' };
      const result = await getWeather.execute(JSON.parse(call.arguments), {
        signal,
        callId: call.id,
        context,
      });
      write(`→ ${call.name} ${call.arguments} → ${serializeToolResult(result)}\n`);
      messages.push(toolMessage(serializeToolResult(result), call.id));
    }
  }
  throw new Error('the model kept calling tools for 4 rounds');
}
