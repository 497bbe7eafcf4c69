import type { ITool } from '@raf/core';
import { AgentBuilder, type ChatClientAgent } from '@raf/framework';
import type { AgentPlan } from './agent-plan.js';

/** The agent a plan describes; `extraTools` (the magentic delegation tools) join its own. */
export function agentFromPlan(
  plan: AgentPlan,
  options: { extraTools?: readonly ITool[]; maxToolRounds?: number } = {},
): ChatClientAgent {
  const builder = new AgentBuilder(plan.definition.name)
    .chatClient(plan.client)
    .maxToolRounds(options.maxToolRounds ?? plan.definition.maxToolRounds);
  if (plan.instructions) builder.instructions(plan.instructions);
  if (plan.definition.description) builder.description(plan.definition.description);
  for (const { tool, source } of plan.tools) if (source !== 'workspace') builder.withTool(tool);
  for (const tool of options.extraTools ?? []) builder.withTool(tool);
  const { toolTimeoutSecs, tools } = plan.definition;
  if (toolTimeoutSecs !== undefined) builder.toolTimeout(toolTimeoutSecs * 1000);
  for (const { tool, index } of plan.tools) {
    const secs = index === undefined ? undefined : tools[index]?.timeoutSecs;
    if (secs !== undefined) builder.toolTimeout(secs * 1000, tool.name);
  }
  for (const { provider } of plan.providers) builder.withContextProvider(provider);
  return builder.build();
}
