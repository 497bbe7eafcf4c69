import type { MessageContent } from './content-part.js';

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/** Where a message came from; history uses it so no message is persisted twice. */
export type MessageSource = 'external' | 'chatHistory' | 'contextProvider' | 'toolResult';

/** A model's request to call a tool. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ChatMessage {
  role: MessageRole;
  /** Text, or parts when the message carries images or files (read the words with `messageText`). */
  content: MessageContent;
  name?: string;
  /** Assistant messages only: the calls this turn asked for. */
  toolCalls?: ToolCall[];
  /** Tool messages only: which call this answers. */
  toolCallId?: string;
  /** Assistant messages only: reasoning text some providers return (DeepSeek `reasoning_content`). */
  reasoning?: string;
  source?: MessageSource;
}

export function systemMessage(content: string): ChatMessage {
  return { role: 'system', content };
}

export function userMessage(content: MessageContent, source: MessageSource = 'external'): ChatMessage {
  return { role: 'user', content, source };
}

export function assistantMessage(content: string, toolCalls?: ToolCall[]): ChatMessage {
  return toolCalls && toolCalls.length > 0
    ? { role: 'assistant', content, toolCalls }
    : { role: 'assistant', content };
}

export function toolMessage(content: MessageContent, toolCallId: string): ChatMessage {
  return { role: 'tool', content, toolCallId, source: 'toolResult' };
}

/** A copy that shares no mutable part with the original (cheaper than `structuredClone`). */
export function cloneMessage(message: ChatMessage): ChatMessage {
  const copy = { ...message };
  if (typeof message.content !== 'string') copy.content = message.content.map((part) => ({ ...part }));
  if (message.toolCalls) copy.toolCalls = message.toolCalls.map((call) => ({ ...call }));
  return copy;
}
