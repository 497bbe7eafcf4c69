import type { ChatClientRunOptions, ITool, ModelOptions } from '@raf/core';
import { indexTools, type ToolIndex } from '../pipeline/step-runner.js';
import type { ToolView } from '../pipeline/tool-view.js';
import { mergeTools } from '../tools/tool-registry.js';

/**
 * An agent's static tools, and the tools of one run: the static ones merged with what providers
 * injected, through the run's view. The static tools' index (and the request's tool definitions
 * with it) is built once per agent.
 */
export class AgentTools {
  private staticIndex: ToolIndex | undefined;

  constructor(readonly tools: readonly ITool[]) {}

  index(providerTools: readonly ITool[] | undefined, view: ToolView | undefined): ToolIndex {
    if (view)
      return indexTools(view(providerTools ? mergeTools(this.tools, providerTools).tools : this.tools));
    if (providerTools && providerTools.length > 0)
      return indexTools(mergeTools(this.tools, providerTools).tools);
    this.staticIndex ??= indexTools(this.tools);
    return this.staticIndex;
  }
}

export function sameTools(a: readonly ITool[], b: readonly ITool[]): boolean {
  return a === b || (a.length === b.length && a.every((tool, i) => tool === b[i]));
}

/** One model request's options, built directly (no spread-and-delete, which leaves a slow object). */
export function modelRequest(
  index: ToolIndex,
  signal: AbortSignal | undefined,
  modelOptions: ModelOptions | undefined,
): ChatClientRunOptions {
  const request: ChatClientRunOptions = { tools: index.definitions };
  // Only a caller's signal goes down: watching a signal that can never fire costs every call.
  if (signal) request.signal = signal;
  if (modelOptions) request.modelOptions = modelOptions;
  return request;
}
