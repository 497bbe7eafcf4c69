import {
  type ChatMessage,
  getErrorMessage,
  inputBudget,
  type ModelMetadata,
  messageText,
  systemMessage,
} from '@raf/core';
import type { ICompressionStrategy, ITokenCounter } from '../compression/compression-types.js';

export interface AgentCompression {
  strategy: ICompressionStrategy;
  counter: ITokenCounter;
  /** Token budget of the prompt; defaults to the client's `inputBudget(modelMetadata)`. */
  inputBudget?: number;
}

/** `[system] + context messages + input`; system messages from providers or the caller join the instructions. */
export function composePrompt(
  instructions: readonly (string | undefined)[],
  context: readonly ChatMessage[],
  input: readonly ChatMessage[],
): ChatMessage[] {
  const parts = [...instructions];
  const messages: ChatMessage[] = [];
  for (const message of [...context, ...input]) {
    if (message.role === 'system') parts.push(messageText(message));
    else messages.push(message);
  }
  const system = parts.filter((text): text is string => Boolean(text?.trim())).join('\n\n');
  return system ? [systemMessage(system), ...messages] : messages;
}

/**
 * The prompt compressed when it exceeds the budget; a strategy that fails leaves it whole, with a
 * warning (a cancelled run still fails).
 */
export async function compressPrompt(
  messages: ChatMessage[],
  compression: AgentCompression | undefined,
  metadata: ModelMetadata | undefined,
  signal: AbortSignal,
): Promise<{ messages: ChatMessage[]; warning?: string }> {
  if (!compression) return { messages };
  const budget = compression.inputBudget ?? (metadata ? inputBudget(metadata) : undefined);
  if (budget === undefined || compression.counter.countTokens(messages) <= budget) return { messages };
  try {
    return {
      messages: await compression.strategy.compress(messages, budget, compression.counter, { signal }),
    };
  } catch (error) {
    if (signal.aborted) throw error;
    return {
      messages,
      warning: `compression (${compression.strategy.name}) failed; the full history was sent: ${getErrorMessage(error)}`,
    };
  }
}
