// Runs the mock model server in its own process so its CPU time is not charged to the client
// being measured. Prints {"baseURL": …} on stdout once listening. Scenarios are picked by model id.
import { type MockTurn, startMockModelServer } from '@raf/client/testing';

const TEXT_2000 = Array.from({ length: 2000 }, (_, i) => `tok${i % 100} `);
const TOOLS_20: MockTurn = {
  toolCalls: Array.from({ length: 20 }, (_, i) => ({
    id: `call_${i}`,
    name: 'lookup',
    arguments: { id: i, query: `item number ${i} with a little more text`, tags: ['a', 'b', 'c'] },
  })),
  usage: { promptTokens: 200, completionTokens: 400, totalTokens: 600 },
};
const scenarios: Record<string, MockTurn> = {
  'text-2000': {
    textChunks: TEXT_2000,
    usage: { promptTokens: 20, completionTokens: 2000, totalTokens: 2020 },
  },
  'tools-20': TOOLS_20,
};

// The agent-loop benchmark: 4 tool rounds of 3 parallel calls, then a short answer.
const LOOP_ROUNDS = 4;
const LOOP_CALLS = 3;
function loopTurn(messages: unknown): MockTurn {
  const list = Array.isArray(messages) ? (messages as { role?: string; tool_calls?: unknown[] }[]) : [];
  const round = list.filter(
    (m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0,
  ).length;
  if (round >= LOOP_ROUNDS)
    return { text: 'All lookups done.', usage: { promptTokens: 300, completionTokens: 5, totalTokens: 305 } };
  return {
    toolCalls: Array.from({ length: LOOP_CALLS }, (_, i) => ({
      id: `call_${round}_${i}`,
      name: 'lookup',
      arguments: { id: round * 10 + i },
    })),
    usage: { promptTokens: 100 + round * 50, completionTokens: 30, totalTokens: 130 + round * 50 },
  };
}

const server = await startMockModelServer({
  recordRequests: false,
  turns: (request) => {
    const model = String(request.body?.model ?? '');
    const scenario = scenarios[model];
    if (scenario) return scenario;
    if (model === 'loop') return loopTurn(request.body?.messages);
    return { text: 'done' };
  },
});
process.stdout.write(`${JSON.stringify({ baseURL: server.baseURL })}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
