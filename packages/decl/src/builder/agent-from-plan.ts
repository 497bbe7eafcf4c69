import {
  AgentBuilder,
  type AgentToolPolicy,
  type ChatClientAgent,
  type GovernanceSource,
  type SubAgentSpec,
  type SubAgentsOptions,
} from '@raf/framework';
import type { AgentPlan } from './agent-plan.js';
import { outputJsonSchema } from './output-schema.js';

export interface AgentAssembly {
  governance?: GovernanceSource;
  toolPolicy?: AgentToolPolicy;
  subAgents?: { specs: readonly SubAgentSpec[]; options: SubAgentsOptions };
}

/** The agent a plan describes: declared tools (routed ones live in their workspace), providers, limits, governance, sub-agents. */
export function agentFromPlan(plan: AgentPlan, assembly: AgentAssembly = {}): ChatClientAgent {
  const builder = new AgentBuilder(plan.definition.name)
    .chatClient(plan.client)
    .maxToolRounds(plan.definition.maxToolRounds);
  if (plan.instructions) builder.instructions(plan.instructions);
  if (plan.definition.description) builder.description(plan.definition.description);
  if (plan.definition.outputSchema) builder.outputSchema(outputJsonSchema(plan.definition.outputSchema));
  for (const { tool, source } of plan.tools) if (source !== 'workspace') builder.withTool(tool);
  const { toolTimeoutSecs, tools } = plan.definition;
  if (toolTimeoutSecs !== undefined) builder.toolTimeout(toolTimeoutSecs * 1000);
  for (const { tool, index } of plan.tools) {
    const secs = index === undefined ? undefined : tools[index]?.timeoutSecs;
    if (secs !== undefined) builder.toolTimeout(secs * 1000, tool.name);
  }
  for (const { provider } of plan.providers) builder.withContextProvider(provider);
  if (assembly.governance) builder.withToolGovernance(assembly.governance, assembly.toolPolicy);
  if (assembly.subAgents) builder.withSubAgents(assembly.subAgents.specs, assembly.subAgents.options);
  return builder.build();
}
