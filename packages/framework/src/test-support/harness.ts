import { OpenAICompatibleChatClient } from '@raf/client';
import { type MockModelServer, type MockTurnInput, startMockModelServer } from '@raf/client/testing';
import { type AgentResponseUpdate, type ChatMessage, defineTool, type ITool, toolSuccess } from '@raf/core';
import { z } from 'zod';

export interface Harness {
  server: MockModelServer;
  client: OpenAICompatibleChatClient;
  close(): Promise<void>;
}

/** A mock model server on 127.0.0.1 and a real HTTP client pointed at it. */
export async function startHarness(turns: MockTurnInput[]): Promise<Harness> {
  const server = await startMockModelServer({ turns });
  const client = new OpenAICompatibleChatClient({ model: 'mock', baseURL: server.baseURL, maxRetries: 0 });
  return {
    server,
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** The messages of the n-th request the model received, in the wire format. */
export function sentMessages(server: MockModelServer, index: number): Record<string, unknown>[] {
  return (server.requests[index]?.body?.messages ?? []) as Record<string, unknown>[];
}

export async function drain(stream: AsyncIterable<AgentResponseUpdate>): Promise<AgentResponseUpdate[]> {
  const updates: AgentResponseUpdate[] = [];
  for await (const update of stream) updates.push(update);
  return updates;
}

/** Updates without the streaming noise (metadata, deltas of arguments), for whole-array comparisons. */
export function significant(updates: AgentResponseUpdate[]): AgentResponseUpdate[] {
  return updates.filter(
    (u) => !['response-metadata', 'tool-call-start', 'tool-call-args', 'usage'].includes(u.type),
  );
}

export function roles(messages: readonly ChatMessage[] | Record<string, unknown>[]): string[] {
  return messages.map((m) => String((m as { role: string }).role));
}

export function echoTool(name = 'echo', extra: Partial<ITool> = {}): ITool {
  const tool = defineTool({
    name,
    description: `Echoes its text (${name})`,
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => toolSuccess({ echoed: text }),
  });
  return Object.assign(tool, extra);
}

/** A scripted tool call for the mock server. */
export function call(id: string, name: string, args: Record<string, unknown>) {
  return { id, name, arguments: args as Record<string, string> };
}
