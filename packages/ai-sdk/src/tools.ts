import { type ITool, type ToolResult, toolRequiresApproval } from '@raf/core';
import { jsonSchema, type Tool, type ToolExecutionOptions, tool } from 'ai';

export interface ToAISDKToolsOptions<Context> {
  /** The run context every tool's `execute` and `requiresApproval` receive (`ctx.context`). */
  context?: Context;
}

/**
 * RAF tools as an AI SDK `ToolSet` for `generateText`/`streamText`: the JSON Schema as the input
 * schema, `requiresApproval` as `needsApproval` (the AI SDK's approval flow asks), `execute` with
 * the call's abort signal and id. The model reads the RAF `ToolResult` (`{ ok, data | error }`).
 */
export function toAISDKTools<Context = unknown>(
  tools: readonly ITool<unknown, Context>[],
  options: ToAISDKToolsOptions<Context> = {},
): Record<string, Tool> {
  const set: Record<string, Tool> = {};
  for (const raf of tools) {
    if (Object.hasOwn(set, raf.name)) throw new TypeError(`toAISDKTools: two tools are named ${raf.name}`);
    set[raf.name] = tool<unknown, ToolResult, never>({
      description: raf.description,
      inputSchema: jsonSchema<unknown>(raf.parameters as Parameters<typeof jsonSchema>[0]),
      needsApproval: async (input: unknown, { toolCallId }: { toolCallId: string }) =>
        toolRequiresApproval(raf, input, { callId: toolCallId, context: options.context as Context }),
      execute: async (
        input: unknown,
        { toolCallId, abortSignal }: ToolExecutionOptions<never>,
      ): Promise<ToolResult> =>
        raf.execute(input, {
          signal: abortSignal ?? new AbortController().signal,
          callId: toolCallId,
          context: options.context as Context,
        } as Parameters<ITool<unknown, Context>['execute']>[1]),
    }) as Tool;
  }
  return set;
}
