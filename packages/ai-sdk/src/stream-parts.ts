import type {
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { type AgentResponseUpdate, type FinishReason, getErrorMessage, type Usage } from '@raf/core';

const REASONS: Readonly<Record<LanguageModelV4FinishReason['unified'], FinishReason>> = {
  stop: 'stop',
  length: 'length',
  'content-filter': 'contentFilter',
  'tool-calls': 'toolCalls',
  error: 'other',
  interrupted: 'cancelled',
  other: 'other',
};

export function mapUsage(usage: LanguageModelV4Usage): Usage {
  const promptTokens = usage.inputTokens.total ?? 0;
  const completionTokens = usage.outputTokens.total ?? 0;
  const mapped: Usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
  if (usage.inputTokens.cacheRead !== undefined) mapped.promptCacheHitTokens = usage.inputTokens.cacheRead;
  if (usage.outputTokens.reasoning !== undefined) mapped.reasoningTokens = usage.outputTokens.reasoning;
  return mapped;
}

/**
 * One AI SDK stream part as RAF updates. Calls stream as `tool-call-start`/`-args` and end with
 * the `tool-call` part's whole input; provider-executed calls and their results are the
 * provider's own business (the model saw them), so they are not handed to the tool loop.
 */
export class StreamPartMapper {
  private readonly started = new Set<string>();
  private readonly providerCalls = new Set<string>();
  finished = false;
  private calls = 0;

  map(part: LanguageModelV4StreamPart, out: AgentResponseUpdate[]): void {
    switch (part.type) {
      case 'text-delta':
        if (part.delta) out.push({ type: 'text-delta', delta: part.delta });
        break;
      case 'reasoning-delta':
        if (part.delta) out.push({ type: 'reasoning-delta', delta: part.delta });
        break;
      case 'tool-input-start':
        if (part.providerExecuted) this.providerCalls.add(part.id);
        else {
          this.started.add(part.id);
          out.push({ type: 'tool-call-start', callId: part.id, name: part.toolName });
        }
        break;
      case 'tool-input-delta':
        if (this.started.has(part.id))
          out.push({ type: 'tool-call-args', callId: part.id, delta: part.delta });
        break;
      case 'tool-call':
        if (part.providerExecuted || this.providerCalls.has(part.toolCallId)) break;
        if (!this.started.has(part.toolCallId))
          out.push({ type: 'tool-call-start', callId: part.toolCallId, name: part.toolName });
        out.push({
          type: 'tool-call-end',
          callId: part.toolCallId,
          name: part.toolName,
          arguments: part.input,
        });
        this.calls++;
        break;
      case 'response-metadata':
        if (part.id !== undefined || part.modelId !== undefined)
          out.push({
            type: 'response-metadata',
            ...(part.id !== undefined && { id: part.id }),
            ...(part.modelId !== undefined && { model: part.modelId }),
          } as AgentResponseUpdate);
        break;
      case 'stream-start':
        for (const warning of part.warnings)
          out.push({ type: 'warning', code: 'RAF_AI_SDK_WARNING', message: JSON.stringify(warning) });
        break;
      case 'error':
        out.push({ type: 'error', code: 'RAF_CHAT_CLIENT', message: getErrorMessage(part.error) });
        break;
      case 'finish': {
        const usage = mapUsage(part.usage);
        out.push({ type: 'usage', usage });
        // Some providers say "stop" after calls; the tool loop must know calls wait.
        const reason = REASONS[part.finishReason.unified] ?? 'other';
        out.push({
          type: 'finish',
          reason: reason === 'stop' && this.calls > 0 ? 'toolCalls' : reason,
          usage,
        });
        this.finished = true;
        break;
      }
      default:
        break;
    }
  }
}
