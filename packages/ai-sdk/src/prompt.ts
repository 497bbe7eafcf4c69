import type {
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolResultOutput,
} from '@ai-sdk/provider';
import { type ChatMessage, type ContentPart, contentText, safeParseToolResult } from '@raf/core';

/** A RAF part as an AI SDK prompt part: text, or a file (an image is a file with an image type). */
function promptPart(part: ContentPart): LanguageModelV4TextPart | LanguageModelV4FilePart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  if (part.type === 'image') {
    return 'url' in part
      ? {
          type: 'file',
          mediaType: part.mediaType ?? 'image/*',
          data: { type: 'url', url: new URL(part.url) },
        }
      : { type: 'file', mediaType: part.mediaType, data: { type: 'data', data: part.data } };
  }
  return {
    type: 'file',
    mediaType: part.mediaType,
    filename: part.name,
    data: { type: 'data', data: part.data },
  };
}

/** A tool result as the AI SDK reads it: the RAF `ToolResult` JSON, an error as error text. */
function toolOutput(message: ChatMessage): LanguageModelV4ToolResultOutput {
  const text = contentText(message.content);
  const parsed = safeParseToolResult(text);
  if (parsed.success && !parsed.value.ok) return { type: 'error-text', value: parsed.value.error ?? text };
  try {
    return { type: 'json', value: JSON.parse(text) };
  } catch {
    return { type: 'text', value: text };
  }
}

function callInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** The conversation as a `LanguageModelV4Prompt`; a tool result names its call's tool. */
export function toPrompt(messages: readonly ChatMessage[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Message[] = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: contentText(message.content) });
        break;
      case 'user':
        prompt.push({
          role: 'user',
          content:
            typeof message.content === 'string'
              ? [{ type: 'text', text: message.content }]
              : message.content.map(promptPart),
        });
        break;
      case 'assistant': {
        const content: Extract<LanguageModelV4Message, { role: 'assistant' }>['content'] = [];
        if (message.reasoning) content.push({ type: 'reasoning', text: message.reasoning });
        const text = contentText(message.content);
        if (text) content.push({ type: 'text', text });
        for (const call of message.toolCalls ?? []) {
          toolNames.set(call.id, call.name);
          content.push({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.name,
            input: callInput(call.arguments),
          });
        }
        prompt.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const id = message.toolCallId ?? '';
        const part = {
          type: 'tool-result' as const,
          toolCallId: id,
          toolName: toolNames.get(id) ?? message.name ?? '',
          output: toolOutput(message),
        };
        // Results of one turn go together in one tool message, as the AI SDK builds them.
        const last = prompt.at(-1);
        if (last?.role === 'tool') last.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
        break;
      }
    }
  }
  return prompt;
}
