// One MCP tool call through the agent's MCP tool (`@raf/mcp`: the ITool an agent built from YAML
// gets) against the bare SDK client, on the same stdio server (server-everything's `echo`). Only
// the contender process is measured; the server runs apart.
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mcpPlugin } from '@raf/mcp';
import { type Measurement, type MeasureOptions, measure, type Operation } from './lib/measure.js';

export const MCP_CONTENDERS = ['raf', 'sdk'] as const;
export type McpBenchResult = Record<(typeof MCP_CONTENDERS)[number], Measurement>;

const server = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);
const ARGS = { message: 'ping' };

function check(text: unknown): void {
  if (text !== 'Echo: ping') throw new Error(`mcp benchmark: unexpected answer ${JSON.stringify(text)}`);
}

/** An operation with the resources it holds: the worker closes it before exiting. */
export type ClosableOperation = Operation & { close(): Promise<void> };

async function sdkOperation(): Promise<ClosableOperation> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [server, 'stdio'], stderr: 'ignore' }),
  );
  const op = async () => {
    const result = await client.callTool({ name: 'echo', arguments: ARGS });
    check((result.content as { text: string }[])[0]?.text);
  };
  return Object.assign(op, { close: () => client.close() });
}

async function rafOperation(): Promise<ClosableOperation> {
  const plugin = mcpPlugin();
  const tools = await plugin.toolKinds!.mcp!(
    {
      kind: 'mcp',
      name: 'everything',
      config: { command: process.execPath, args: [server, 'stdio'], tools: ['echo'] },
    },
    { baseDir: process.cwd(), env: {}, warn: () => undefined },
  );
  const echo = tools[0]!;
  // What the tool loop passes: a run's signal, validated arguments.
  const signal = new AbortController().signal;
  const op = async () => {
    const result = await echo.execute(ARGS, { signal, callId: 'call_bench', argumentsValidated: true });
    check(result.data);
  };
  return Object.assign(op, { close: () => plugin.close() });
}

export function mcpOperation(contender: string): Promise<ClosableOperation> {
  if (contender === 'raf') return rafOperation();
  if (contender === 'sdk') return sdkOperation();
  throw new Error(`unknown mcp contender ${contender}`);
}

export function runMcpBench(options: MeasureOptions): Promise<McpBenchResult> {
  return measure(
    { bench: 'mcp', scenario: 'echo', baseURL: '' },
    [...MCP_CONTENDERS],
    options,
  ) as Promise<McpBenchResult>;
}
