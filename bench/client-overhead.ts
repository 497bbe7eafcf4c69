import { Agent } from 'undici';
import { bareChatCompletion, bareDispatchChatCompletion } from './lib/bare-loop.js';
import { type Measurement, type MeasureOptions, measure, type Operation } from './lib/measure.js';

export const CLIENT_SCENARIOS = { text2000: 'text-2000', tools20: 'tools-20' } as const;
export type ClientScenario = keyof typeof CLIENT_SCENARIOS;
/** `floor` reads undici's `dispatch` callbacks as `@raf/client` does; `floorRequest` uses `request()`. */
export const CLIENT_CONTENDERS = ['floor', 'floorRequest', 'raf', 'openai'] as const;
export type ClientBenchResult = Record<
  ClientScenario,
  Record<(typeof CLIENT_CONTENDERS)[number], Measurement>
>;

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`benchmark contender produced a wrong answer: ${what}`);
}

/** Builds one contender's operation: stream the scenario's answer to the end. */
export async function clientOperation(
  baseURL: string,
  scenario: ClientScenario,
  contender: string,
): Promise<Operation> {
  const model = CLIENT_SCENARIOS[scenario];
  const expectTools = scenario === 'tools20';
  const ok = (text: string, calls: number) => (expectTools ? calls === 20 : text.length > 5000);
  if (contender === 'floor' || contender === 'floorRequest') {
    const dispatcher = new Agent();
    const send = contender === 'floor' ? bareDispatchChatCompletion : bareChatCompletion;
    return async () => {
      const answer = await send(baseURL, { model, messages: [{ role: 'user', content: 'go' }] }, dispatcher);
      check(ok(answer.text, answer.calls.length), 'floor');
    };
  }
  if (contender === 'raf') {
    const [{ OpenAICompatibleChatClient }, { userMessage }] = await Promise.all([
      import('@raf/client'),
      import('@raf/core'),
    ]);
    const client = new OpenAICompatibleChatClient({ model, baseURL, apiKey: 'x' });
    return async () => {
      let text = '';
      let calls = 0;
      for await (const update of client.run([userMessage('go')])) {
        if (update.type === 'text-delta') text += update.delta;
        else if (update.type === 'tool-call-end') calls++;
      }
      check(ok(text, calls), 'raf');
    };
  }
  if (contender === 'openai') {
    const { default: OpenAI } = await import('openai');
    const openai = new OpenAI({ baseURL, apiKey: 'x', maxRetries: 0 });
    return async () => {
      const stream = await openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'go' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      const args: string[] = [];
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        if (delta?.content) text += delta.content;
        for (const call of delta?.tool_calls ?? [])
          args[call.index] = (args[call.index] ?? '') + (call.function?.arguments ?? '');
      }
      check(ok(text, args.length), 'openai');
    };
  }
  throw new Error(`unknown client contender ${contender}`);
}

export async function runClientBench(
  baseURL: string,
  options: Record<ClientScenario, MeasureOptions>,
): Promise<ClientBenchResult> {
  const result = {} as ClientBenchResult;
  for (const scenario of Object.keys(CLIENT_SCENARIOS) as ClientScenario[]) {
    result[scenario] = (await measure(
      { bench: 'client', scenario, baseURL },
      [...CLIENT_CONTENDERS],
      options[scenario],
    )) as ClientBenchResult[ClientScenario];
  }
  return result;
}
