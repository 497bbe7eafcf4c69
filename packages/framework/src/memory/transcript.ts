import { type ChatMessage, messageText } from '@raf/core';

/** Messages of one session since its last consolidation. */
export interface TranscriptSegment {
  sessionId?: string;
  messages: readonly ChatMessage[];
}

/** Tools whose results carry knowledge worth keeping (the rest are shown as calls only). */
const KNOWLEDGE_TOOLS = new Set([
  'web_fetch',
  'web_search',
  'read_file',
  'search_file',
  'load_skill',
  'read_skill_resource',
  'memory_recall',
]);
const MESSAGE_CHARS = 4000;
const RESULT_CHARS = 2000;
const TOTAL_CHARS = 60_000;

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)} …[${text.length - max} more characters]` : text;

/**
 * The conversation as the curator reads it: user and assistant text, the tool calls, and the
 * results of knowledge tools (web, files, skills, recall); system prompts and other tool output
 * left out. When it is too long, the oldest part goes first.
 */
export function renderTranscript(segments: readonly TranscriptSegment[]): string {
  const blocks: string[] = [];
  for (const segment of segments) {
    const names = new Map<string, string>();
    const lines: string[] = [];
    for (const message of segment.messages) {
      if (message.role === 'user') lines.push(`User: ${clip(messageText(message), MESSAGE_CHARS)}`);
      else if (message.role === 'assistant') {
        if (messageText(message).trim())
          lines.push(`Assistant: ${clip(messageText(message), MESSAGE_CHARS)}`);
        for (const call of message.toolCalls ?? []) {
          names.set(call.id, call.name);
          lines.push(`Assistant called ${call.name} ${clip(call.arguments, RESULT_CHARS)}`);
        }
      } else if (message.role === 'tool') {
        const name = names.get(message.toolCallId ?? '') ?? message.name ?? '';
        if (KNOWLEDGE_TOOLS.has(name))
          lines.push(`Result of ${name}: ${clip(messageText(message), RESULT_CHARS)}`);
      }
    }
    if (lines.length > 0)
      blocks.push([`### Session ${segment.sessionId ?? '(unsaved)'}`, ...lines].join('\n\n'));
  }
  let text = blocks.join('\n\n');
  if (text.length > TOTAL_CHARS)
    text = `…[earlier part left out]\n\n${text.slice(text.length - TOTAL_CHARS)}`;
  return text;
}
