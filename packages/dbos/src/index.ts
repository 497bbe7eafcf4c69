export { DEFAULT_DELEGATION_QUEUE, DELEGATION_WORKFLOW } from './delegation-spec.js';
export {
  DurableAgent,
  type DurableAgentOptions,
  type DurableRunOptions,
  type DurableRunStop,
  durableAgent,
} from './durable-agent.js';
export {
  DurableControl,
  type DurableDelegationInfo,
  type DurableRunInfo,
  type DurableRunStatus,
} from './durable-control.js';
export { type AgentResolver, DurableRuntime, type DurableRuntimeOptions } from './durable-runtime.js';
export type { DurableWorkflow, DurableWorkflowAgent, DurableWorkflowResult } from './durable-workflow.js';
export type { ApproveOptions, DurableAnswer } from './pause-answer.js';
export {
  DEFAULT_RUN_QUEUE,
  type DurableAgentRef,
  type DurableRunOutcome,
  type DurableRunSpec,
  type PausedState,
  RUN_WORKFLOW,
  type RunListener,
  type RunState,
  type WorkflowQuestion,
} from './run-spec.js';
