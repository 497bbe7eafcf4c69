import type { Dispatcher } from 'undici';
import type { BareAnswer } from './lib/bare-loop.js';
import {
  type Measurement,
  type MeasureOptions,
  measure,
  measurePhases,
  type Operation,
} from './lib/measure.js';

export const LOOP_ROUNDS = 4;
/**
 * `floor` is the hand loop on undici's `dispatch` callbacks, the transport `@raf/client` uses: the
 * reference. `floorRequest` is the same loop on `undici.request()` (a Readable per answer), shown
 * apart so that a ratio below 1 against it is read as transport, not framework.
 */
export const LOOP_CONTENDERS = ['floor', 'floorRequest', 'raf', 'openaiAgents', 'aiSdk'] as const;
export type LoopBenchResult = Record<(typeof LOOP_CONTENDERS)[number], Measurement>;

const lookup = (id: number) => ({ id, value: `item ${id}` });
const INSTRUCTIONS = 'Look the items up.';

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`loop benchmark contender did not finish the run: ${what}`);
}

type BareRequest = (
  baseURL: string,
  body: Record<string, unknown>,
  dispatcher: Dispatcher,
) => Promise<BareAnswer>;

/**
 * The floor: the tool loop written by hand on undici with the minimum SSE handling, on
 * `dispatch` callbacks (`floor`) or on `request()` (`floorRequest`). Imported here, not at the top,
 * so that a fresh process (`cold-run.ts`) loads only what its contender needs.
 */
async function floorOperation(
  baseURL: string,
  transport: 'dispatch' | 'request',
  lateTierUp = false,
): Promise<Operation> {
  const [{ Agent }, bare] = await Promise.all([import('undici'), import('./lib/bare-loop.js')]);
  const plainSend: BareRequest =
    transport === 'dispatch' ? bare.bareDispatchChatCompletion : bare.bareChatCompletion;
  const send = lateTierUp ? await withLateTierUp(plainSend) : plainSend;
  const dispatcher = new Agent();
  const tools = [
    {
      type: 'function',
      function: {
        name: 'lookup',
        description: 'Look an item up',
        parameters: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
      },
    },
  ];
  return async () => {
    const messages: unknown[] = [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: 'go' },
    ];
    for (let round = 0; round <= LOOP_ROUNDS; round++) {
      const { text, calls } = await send(baseURL, { model: 'loop', messages, tools }, dispatcher);
      if (calls.length === 0) {
        check(text.length > 0, 'floor');
        return;
      }
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.args },
        })),
      });
      const results = await Promise.all(
        calls.map(async (c) => JSON.stringify({ ok: true, data: lookup(JSON.parse(c.args).id) })),
      );
      calls.forEach((c, i) => {
        messages.push({ role: 'tool', tool_call_id: c.id, content: results[i] });
      });
    }
    throw new Error('floor: too many rounds');
  };
}

/**
 * The floor with the one start-up trick `@raf/client` plays (`parser-tier-up.ts`): V8's wasm
 * tiering budget raised while undici compiles llhttp on the first connection, so a short process
 * does not wait at exit for the parser's optimising compile. Against this floor, raf's cold run is
 * compared like for like.
 */
async function withLateTierUp(send: BareRequest): Promise<BareRequest> {
  const { setFlagsFromString } = await import('node:v8');
  let first = true;
  return async (...args) => {
    if (!first) return send(...args);
    first = false;
    setFlagsFromString('--wasm-tiering-budget=2000000000');
    try {
      return await send(...args);
    } finally {
      // V8's default: 1,800,000 in Node 20's V8 11, 13,000,000 in Node 22's and 24's.
      setFlagsFromString(
        `--wasm-tiering-budget=${process.versions.v8.startsWith('11.') ? 1_800_000 : 13_000_000}`,
      );
    }
  };
}

async function rafOperation(baseURL: string): Promise<Operation> {
  const [
    { OpenAICompatibleChatClient, delayParserTierUp },
    { defineTool, toolSuccess },
    { AgentBuilder },
    { z },
  ] = await Promise.all([
    import('@raf/client'),
    import('@raf/core'),
    import('@raf/framework'),
    import('zod'),
  ]);
  // What `raf` does in its short processes (an opt-in since the client stopped doing it unasked;
  // an earlier build, `cold-compare.ts --before`, has no such export and plays it unasked).
  (delayParserTierUp as (() => boolean) | undefined)?.();
  const client = new OpenAICompatibleChatClient({ model: 'loop', baseURL, apiKey: 'x' });
  const agent = new AgentBuilder('bench')
    .chatClient(client)
    .instructions(INSTRUCTIONS)
    .withTool(
      defineTool({
        name: 'lookup',
        description: 'Look an item up',
        parameters: z.object({ id: z.number() }),
        execute: ({ id }) => toolSuccess(lookup(id)),
      }),
    )
    .build();
  return async () => {
    let rounds = 0;
    let finish = '';
    for await (const update of agent.run('go')) {
      if (update.type === 'tool-called' && update.callId.endsWith('_0')) rounds++;
      else if (update.type === 'finish') finish = update.reason;
    }
    check(rounds === LOOP_ROUNDS && finish === 'stop', `raf (${rounds} rounds, ${finish})`);
  };
}

async function openaiAgentsOperation(baseURL: string): Promise<Operation> {
  const [
    {
      Agent: OpenAIAgent,
      OpenAIChatCompletionsModel,
      run: runOpenAIAgent,
      setTracingDisabled,
      tool: openAITool,
    },
    { default: OpenAI },
    { z },
  ] = await Promise.all([import('@openai/agents'), import('openai'), import('zod')]);
  setTracingDisabled(true);
  const model = new OpenAIChatCompletionsModel(new OpenAI({ baseURL, apiKey: 'x', maxRetries: 0 }), 'loop');
  const agent = new OpenAIAgent({
    name: 'bench',
    instructions: INSTRUCTIONS,
    model,
    tools: [
      openAITool({
        name: 'lookup',
        description: 'Look an item up',
        parameters: z.object({ id: z.number() }),
        execute: async ({ id }) => JSON.stringify({ ok: true, data: lookup(id) }),
      }),
    ],
  });
  return async () => {
    const result = await runOpenAIAgent(agent, 'go', { stream: true, maxTurns: 10 });
    for await (const _ of result) void _;
    await result.completed;
    check(String(result.finalOutput ?? '').length > 0, 'openaiAgents');
  };
}

async function aiSdkOperation(baseURL: string): Promise<Operation> {
  const [{ createOpenAICompatible }, { stepCountIs, streamText, tool: aiTool }, { z }] = await Promise.all([
    import('@ai-sdk/openai-compatible'),
    import('ai'),
    import('zod'),
  ]);
  const provider = createOpenAICompatible({ name: 'mock', baseURL, apiKey: 'x', includeUsage: true });
  const tools = {
    lookup: aiTool({
      description: 'Look an item up',
      inputSchema: z.object({ id: z.number() }),
      execute: async ({ id }) => ({ ok: true, data: lookup(id) }),
    }),
  };
  return async () => {
    const result = streamText({
      model: provider.chatModel('loop'),
      system: INSTRUCTIONS,
      prompt: 'go',
      tools,
      stopWhen: stepCountIs(10),
      maxRetries: 0,
    });
    for await (const _ of result.fullStream) void _;
    const steps = await result.steps;
    check(steps.length === LOOP_ROUNDS + 1, `aiSdk (${steps.length} steps)`);
  };
}

export async function loopOperation(baseURL: string, contender: string): Promise<Operation> {
  switch (contender) {
    case 'floor':
      return floorOperation(baseURL, 'dispatch');
    case 'floorLateTierUp':
      return floorOperation(baseURL, 'dispatch', true);
    case 'floorRequest':
      return floorOperation(baseURL, 'request');
    case 'raf':
      return rafOperation(baseURL);
    case 'openaiAgents':
      return openaiAgentsOperation(baseURL);
    case 'aiSdk':
      return aiSdkOperation(baseURL);
    default:
      throw new Error(`unknown loop contender ${contender}`);
  }
}

/** CPU ms per agent run (4 tool rounds × 3 parallel calls + the final answer). */
export function runLoopBench(baseURL: string, options: MeasureOptions): Promise<LoopBenchResult> {
  return measure(
    { bench: 'loop', scenario: 'loop', baseURL },
    [...LOOP_CONTENDERS],
    options,
  ) as Promise<LoopBenchResult>;
}

/**
 * The loop cold and warm from the same fresh processes: measured after `cold.warmupOps` runs, then
 * again once `warm.warmupOps` runs in all have gone by.
 */
export async function runColdWarmLoopBench(
  baseURL: string,
  rounds: number,
  cold: MeasureOptions,
  warm: MeasureOptions,
): Promise<{ cold: LoopBenchResult; warm: LoopBenchResult }> {
  const between = warm.warmupOps - cold.warmupOps - cold.ops;
  if (between < 0) throw new Error('the warm phase must start after the cold one');
  const [c, w] = await measurePhases(
    { bench: 'loop', scenario: 'loop', baseURL },
    [...LOOP_CONTENDERS],
    rounds,
    [
      { warmupOps: cold.warmupOps, ops: cold.ops },
      { warmupOps: between, ops: warm.ops },
    ],
  );
  return { cold: c as LoopBenchResult, warm: w as LoopBenchResult };
}
