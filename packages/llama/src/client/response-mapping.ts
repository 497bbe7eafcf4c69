import type { FinishReason, JSONValue, ToolDefinition, Usage } from '@raf/core';
import type { LlamaChatResponse, TokenMeterState } from 'node-llama-cpp';
import { dropAbsent } from './gbnf-schema.js';

type StopReason = LlamaChatResponse['metadata']['stopReason'];

const FINISH: Readonly<Record<StopReason, FinishReason>> = {
  eogToken: 'stop',
  stopGenerationTrigger: 'stop',
  customStopTrigger: 'stop',
  functionCalls: 'toolCalls',
  maxTokens: 'length',
  abort: 'cancelled',
};

export function finishReasonOf(stopReason: StopReason): FinishReason {
  return FINISH[stopReason] ?? 'other';
}

/**
 * Tokens of one request from the sequence's meter. llama.cpp evaluates only the part of the prompt
 * that differs from what the sequence already holds: the rest is reported as a cache hit.
 */
export function usageOf(before: TokenMeterState, after: TokenMeterState, contextTokens: number): Usage {
  const evaluated = after.usedInputTokens - before.usedInputTokens;
  const completionTokens = after.usedOutputTokens - before.usedOutputTokens;
  const promptTokens = Math.max(evaluated, contextTokens - completionTokens);
  const usage: Usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
  if (promptTokens > evaluated) {
    usage.promptCacheHitTokens = promptTokens - evaluated;
    usage.promptCacheMissTokens = evaluated;
  }
  return usage;
}

/** A call's arguments as the tool expects them (without the grammar's nulls for absent ones). */
export function argumentsOf(params: unknown, tool: ToolDefinition | undefined): string {
  const value = (params ?? {}) as JSONValue;
  const parameters = tool?.parameters;
  return JSON.stringify(parameters ? dropAbsent(value, parameters) : value);
}
