import type { ChatClientRunOptions, ModelOptions, ToolDefinition } from '@raf/core';
import type { ChatModelFunctions, LLamaChatGenerateResponseOptions } from 'node-llama-cpp';
import { toGbnfSchema } from './gbnf-schema.js';

type Sampling = Pick<
  LLamaChatGenerateResponseOptions<ChatModelFunctions>,
  'temperature' | 'topP' | 'seed' | 'maxTokens' | 'customStopTriggers' | 'repeatPenalty'
>;

/** Request options over the client's defaults, as node-llama-cpp's sampling settings. */
export function samplingOf(
  defaults: ModelOptions,
  request: ModelOptions | undefined,
  maxTokens: number,
): Sampling {
  const o = { ...defaults, ...request };
  const sampling: Sampling = { maxTokens: o.maxTokens ?? maxTokens };
  if (o.temperature !== undefined) sampling.temperature = o.temperature;
  if (o.topP !== undefined) sampling.topP = o.topP;
  if (o.seed !== undefined) sampling.seed = o.seed;
  if (o.stop && o.stop.length > 0) sampling.customStopTriggers = o.stop;
  if (o.presencePenalty !== undefined || o.frequencyPenalty !== undefined) {
    // llama.cpp takes these in [0, 1]; OpenAI's range is [-2, 2]: negative values turn it off.
    const clamp = (v: number | undefined) => Math.min(1, Math.max(0, v ?? 0));
    sampling.repeatPenalty = {
      presencePenalty: clamp(o.presencePenalty),
      frequencyPenalty: clamp(o.frequencyPenalty),
    };
  }
  return sampling;
}

/**
 * The tools the model may call, as grammar-constrained functions: none for `toolChoice: 'none'`,
 * only the named one for `{ name }`. (`'required'` cannot be forced through node-llama-cpp: the
 * model may still answer in text.)
 */
export function functionsOf(
  tools: readonly ToolDefinition[] | undefined,
  choice: ChatClientRunOptions['toolChoice'],
): ChatModelFunctions | undefined {
  if (!tools || tools.length === 0 || choice === 'none') return undefined;
  const offered = typeof choice === 'object' ? tools.filter((t) => t.name === choice.name) : tools;
  if (offered.length === 0) return undefined;
  return Object.fromEntries(
    offered.map((tool) => [
      tool.name,
      { description: tool.description, params: toGbnfSchema(tool.parameters) },
    ]),
  );
}
