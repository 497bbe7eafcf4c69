import {
  type ChatMessage,
  collectAgentResponse,
  describeContent,
  type IChatClient,
  systemMessage,
  userMessage,
} from '@raf/core';
import type { CompressionContext, ICompressionStrategy, ITokenCounter } from './compression-types.js';
import { flatten, groupMessages } from './message-groups.js';

export interface SummarizeOptions {
  /** The model that writes the summary (often a small, cheap one). */
  client: IChatClient;
  /** Share of the budget kept verbatim for the newest messages (default 0.5). */
  keepRecentShare?: number;
  prompt?: string;
}

const DEFAULT_PROMPT =
  'Summarize the conversation below for the assistant who will continue it. Keep facts, decisions, open tasks, file names and values; drop pleasantries. Answer with the summary only.';

function transcript(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => {
      const calls = m.toolCalls?.map((c) => ` [called ${c.name} ${c.arguments}]`).join('') ?? '';
      return `${m.role}${m.role === 'tool' ? ` (${m.toolCallId})` : ''}: ${describeContent(m.content)}${calls}`;
    })
    .join('\n');
}

/**
 * Replaces the oldest part of the conversation with an LLM-written summary (one system message),
 * keeping the newest groups verbatim. Tool calls and their results are summarized or kept together.
 */
export class SummarizeStrategy implements ICompressionStrategy {
  readonly name = 'summarize';

  constructor(private readonly options: SummarizeOptions) {}

  async compress(
    messages: readonly ChatMessage[],
    budget: number,
    counter: ITokenCounter,
    context: CompressionContext = {},
  ): Promise<ChatMessage[]> {
    const groups = groupMessages(messages).filter((g) => !g.orphan);
    const keepBudget = budget * (this.options.keepRecentShare ?? 0.5);
    let split = groups.length;
    let kept = 0;
    for (let i = groups.length - 1; i >= 0; i--) {
      const group = groups[i]!;
      if (group.system) continue;
      const size = counter.countTokens(group.messages);
      if (split < groups.length && kept + size > keepBudget) break;
      kept += size;
      split = i;
    }
    const old = groups.slice(0, split).filter((g) => !g.system);
    if (old.length === 0) return flatten(groups);
    const response = await collectAgentResponse(
      this.options.client.run(
        [systemMessage(this.options.prompt ?? DEFAULT_PROMPT), userMessage(transcript(flatten(old)))],
        context.signal ? { signal: context.signal } : {},
      ),
    );
    const summary = systemMessage(`Summary of the earlier conversation:\n${response.text.trim()}`);
    const systems = groups.filter((g) => g.system);
    return [...flatten(systems), summary, ...flatten(groups.slice(split).filter((g) => !g.system))];
  }
}
