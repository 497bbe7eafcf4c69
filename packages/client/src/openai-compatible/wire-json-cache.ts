import type { ChatMessage, ToolDefinition } from '@raf/core';

/** A message's wire JSON and the fields it was made from (a changed field makes it stale). */
interface CachedMessage {
  json: string;
  role: ChatMessage['role'];
  content: string;
  name: string | undefined;
  toolCalls: ChatMessage['toolCalls'];
  toolCallCount: number;
  toolCallId: string | undefined;
  reasoning: string | undefined;
}

const plain = new WeakMap<ChatMessage, CachedMessage>();
const echoing = new WeakMap<ChatMessage, CachedMessage>();
const toolLists = new WeakMap<readonly ToolDefinition[], { json: string; count: number }>();

function fresh(cached: CachedMessage, message: ChatMessage): boolean {
  return (
    cached.content === message.content &&
    cached.toolCalls === message.toolCalls &&
    cached.toolCallCount === (message.toolCalls?.length ?? 0) &&
    cached.role === message.role &&
    cached.name === message.name &&
    cached.toolCallId === message.toolCallId &&
    cached.reasoning === message.reasoning
  );
}

/**
 * The JSON of one message on the wire, serialized once per message object. The tool loop sends
 * the same objects every round; a message whose fields were reassigned since is serialized again.
 */
export function messageJson(
  message: ChatMessage,
  echoReasoning: boolean,
  toWire: (message: ChatMessage, echoReasoning: boolean) => unknown,
): string {
  const cache = echoReasoning ? echoing : plain;
  const cached = cache.get(message);
  if (cached !== undefined && fresh(cached, message)) return cached.json;
  const json = JSON.stringify(toWire(message, echoReasoning));
  cache.set(message, {
    json,
    role: message.role,
    content: message.content,
    name: message.name,
    toolCalls: message.toolCalls,
    toolCallCount: message.toolCalls?.length ?? 0,
    toolCallId: message.toolCallId,
    reasoning: message.reasoning,
  });
  return json;
}

/** The JSON of a tool list, serialized once per list (the tool loop reuses one list per run). */
export function toolsJson(
  tools: readonly ToolDefinition[],
  toWire: (tool: ToolDefinition) => unknown,
): string {
  const cached = toolLists.get(tools);
  if (cached !== undefined && cached.count === tools.length) return cached.json;
  const json = JSON.stringify(tools.map(toWire));
  toolLists.set(tools, { json, count: tools.length });
  return json;
}
