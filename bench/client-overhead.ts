import { OpenAICompatibleChatClient } from '@raf/client';
import { userMessage } from '@raf/core';
import OpenAI from 'openai';
import { Agent } from 'undici';
import { bareChatCompletion } from './lib/bare-loop.js';
import { type Contender, type Measurement, measure } from './lib/measure.js';

export type ClientBenchResult = Record<'text2000' | 'tools20', Record<'raf' | 'floor' | 'openai', Measurement>>;

const SCENARIOS = { text2000: 'text-2000', tools20: 'tools-20' } as const;

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`benchmark contender produced a wrong answer: ${what}`);
}

/** Streams each scenario's answer to the end with each contender and measures CPU per answer. */
export async function runClientBench(baseURL: string, options: { rounds: number; opsPerRound: number }): Promise<ClientBenchResult> {
  const dispatcher = new Agent();
  const openai = new OpenAI({ baseURL, apiKey: 'x', maxRetries: 0 });
  const result = {} as ClientBenchResult;
  for (const [key, model] of Object.entries(SCENARIOS) as [keyof typeof SCENARIOS, string][]) {
    const raf = new OpenAICompatibleChatClient({ model, baseURL, apiKey: 'x' });
    const messages = [userMessage('go')];
    const expectTools = key === 'tools20';
    const contenders: Contender[] = [
      {
        name: 'floor',
        async run() {
          const answer = await bareChatCompletion(baseURL, { model, messages }, dispatcher);
          check(expectTools ? answer.toolArgs.length === 20 : answer.text.length > 5000, 'floor');
        },
      },
      {
        name: 'raf',
        async run() {
          let text = '';
          let calls = 0;
          for await (const update of raf.run(messages)) {
            if (update.type === 'text-delta') text += update.delta;
            else if (update.type === 'tool-call-end') calls++;
          }
          check(expectTools ? calls === 20 : text.length > 5000, 'raf');
        },
      },
      {
        name: 'openai',
        async run() {
          const stream = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'go' }], stream: true, stream_options: { include_usage: true } });
          let text = '';
          const args: string[] = [];
          for await (const chunk of stream) {
            const delta = chunk.choices[0]?.delta;
            if (delta?.content) text += delta.content;
            for (const call of delta?.tool_calls ?? []) args[call.index] = (args[call.index] ?? '') + (call.function?.arguments ?? '');
          }
          check(expectTools ? args.length === 20 : text.length > 5000, 'openai');
        },
      },
    ];
    result[key] = (await measure(contenders, options)) as ClientBenchResult[typeof key];
    await raf.close();
  }
  await dispatcher.close();
  return result;
}
