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

const server = await startMockModelServer({
  recordRequests: false,
  turns: (request) => {
    const model = String(request.body?.model ?? '');
    const scenario = scenarios[model];
    if (scenario) return scenario;
    // The agent-loop benchmark sends a model id like "loop-4x3": rounds x parallel calls.
    return { text: 'done' };
  },
});
process.stdout.write(`${JSON.stringify({ baseURL: server.baseURL })}\n`);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
