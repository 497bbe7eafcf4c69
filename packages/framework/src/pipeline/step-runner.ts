import {
  type AgentResponseUpdate,
  type ChatClientRunOptions,
  type ChatMessage,
  type FinishUpdate,
  getErrorMessage,
  type ITool,
  type ToolCall,
  type ToolDefinition,
  toToolDefinition,
  type Usage,
} from '@raf/core';
import type { LoopHooks, StepResult, StepToolResult, StopCondition } from './step-hooks.js';

/** The tools of one run: by name, and as the definitions the model receives. */
export interface ToolIndex {
  tools: readonly ITool[];
  byName: ReadonlyMap<string, ITool>;
  definitions: ToolDefinition[];
}

export function indexTools(tools: readonly ITool[]): ToolIndex {
  return {
    tools,
    byName: new Map(tools.map((tool) => [tool.name, tool])),
    definitions: tools.map(toToolDefinition),
  };
}

/** What one model call produced. */
export type Turn = {
  text: string;
  reasoning: string;
  calls: ToolCall[];
  finish: FinishUpdate | undefined;
  failed: boolean;
  usage: Usage | undefined;
};

/** One step's request: what `prepareStep` may have changed. */
export interface StepRequest {
  options: ChatClientRunOptions;
  byName: ReadonlyMap<string, ITool>;
}

/** Asks `prepareStep` and applies its answer to this step's request (and the conversation). */
export async function prepareStep(
  hooks: LoopHooks,
  stepNumber: number,
  conversation: ChatMessage[],
  index: ToolIndex,
  innerOptions: ChatClientRunOptions,
): Promise<{ request: StepRequest; messages?: ChatMessage[] }> {
  const change = await hooks.prepareStep?.({
    stepNumber,
    messages: conversation,
    tools: index.tools,
    modelOptions: innerOptions.modelOptions,
  });
  const request: StepRequest = { options: innerOptions, byName: index.byName };
  if (!change) return { request };
  if (change.modelOptions || change.activeTools) {
    request.options = { ...innerOptions };
    if (change.modelOptions) request.options.modelOptions = change.modelOptions;
    if (change.activeTools) {
      const active = new Set(change.activeTools);
      const tools = index.tools.filter((tool) => active.has(tool.name));
      request.options.tools = tools.map(toToolDefinition);
      request.byName = new Map(tools.map((tool) => [tool.name, tool]));
    }
  }
  return change.messages ? { request, messages: [...change.messages] } : { request };
}

/** Records the step and calls `onStepFinish`; a hook that throws becomes a warning. */
export async function stepFinished(
  hooks: LoopHooks | undefined,
  steps: StepResult[] | undefined,
  stepNumber: number,
  turn: Turn,
  updates: readonly AgentResponseUpdate[],
  finishReason: FinishUpdate['reason'],
  started: number,
): Promise<AgentResponseUpdate[] | undefined> {
  const toolResults: StepToolResult[] = [];
  for (const u of updates) {
    if (u.type === 'tool-called') toolResults.push({ callId: u.callId, name: u.name, result: u.result });
  }
  const step: StepResult = {
    stepNumber,
    text: turn.text,
    toolCalls: turn.calls,
    toolResults,
    usage: turn.usage,
    finishReason,
    durationMs: performance.now() - started,
  };
  steps?.push(step);
  if (!hooks?.onStepFinish) return undefined;
  try {
    await hooks.onStepFinish(step);
    return undefined;
  } catch (error) {
    return [{ type: 'warning', message: `onStepFinish hook failed: ${getErrorMessage(error)}` }];
  }
}

/** Whether any stop condition holds after this step. */
export async function shouldStop(
  conditions: readonly StopCondition[] | undefined,
  stepNumber: number,
  steps: readonly StepResult[],
): Promise<boolean> {
  for (const condition of conditions ?? []) if (await condition({ stepNumber, steps })) return true;
  return false;
}
