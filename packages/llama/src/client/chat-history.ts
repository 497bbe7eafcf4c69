import { type ChatMessage, messageText } from '@raf/core';
import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse } from 'node-llama-cpp';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Our messages as node-llama-cpp's chat history. An assistant turn and the tool results that
 * answer its calls are one model response there (each call carries its result), and the tool
 * loop's next request continues that response; so the history always ends with a model item,
 * the one the model writes next.
 */
export function toChatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  const calls = new Map<string, ChatModelFunctionCall>();
  let current: ChatModelResponse | undefined;
  const modelItem = (): ChatModelResponse => {
    if (!current) {
      current = { type: 'model', response: [] };
      history.push(current);
    }
    return current;
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        history.push({ type: 'system', text: messageText(message) });
        current = undefined;
        break;
      case 'user':
        history.push({ type: 'user', text: messageText(message) });
        current = undefined;
        break;
      case 'assistant': {
        const item = modelItem();
        if (messageText(message)) item.response.push(messageText(message));
        for (const [index, call] of (message.toolCalls ?? []).entries()) {
          const functionCall: ChatModelFunctionCall = {
            type: 'functionCall',
            name: call.name,
            params: parseJson(call.arguments),
            // Until its tool message arrives (a paused approval), the call has no result yet.
            result: null,
            startsNewChunk: index === 0,
          };
          calls.set(call.id, functionCall);
          item.response.push(functionCall);
        }
        break;
      }
      case 'tool': {
        const call = message.toolCallId === undefined ? undefined : calls.get(message.toolCallId);
        if (call) call.result = parseJson(messageText(message));
        // A result whose call is not in the history is shown as text so the model still sees it.
        else modelItem().response.push(`Tool result: ${messageText(message)}`);
        break;
      }
    }
  }
  if (history.at(-1)?.type !== 'model') history.push({ type: 'model', response: [] });
  return history;
}
