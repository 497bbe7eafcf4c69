export type { AgentLike, AgentLikeInput, AgentLikeRunOptions } from './agent/agent-like.js';
export { NodeSession } from './agent/node-session.js';
export type { WorkflowAgentRunOptions } from './agent/workflow-agent.js';
export { WORKFLOW_STATE_KEY, WorkflowAgent } from './agent/workflow-agent.js';
export { writeFileAtomic } from './checkpoint/atomic-write.js';
export type {
  Checkpoint,
  CheckpointInfo,
  CheckpointStore,
  CheckpointStoreOptions,
} from './checkpoint/checkpoint-store.js';
export { parseCheckpoint } from './checkpoint/checkpoint-store.js';
export type { OpenedCheckpointStore } from './checkpoint/create-checkpoint-store.js';
export { createCheckpointStore } from './checkpoint/create-checkpoint-store.js';
export { FileCheckpointStore, type FileCheckpointStoreOptions } from './checkpoint/file-checkpoint-store.js';
export { InMemoryCheckpointStore } from './checkpoint/memory-checkpoint-store.js';
export type { CompileActionsOptions, CompiledWorkflow } from './dsl/compile-actions.js';
export { ACTION_KINDS, compileWorkflowDocument } from './dsl/compile-actions.js';
export type {
  ActionPath,
  DslProblem,
  DslServices,
  HttpRequest,
  HttpResponse,
  WorkflowDocument,
} from './dsl/dsl-types.js';
export type { Expr, Scope } from './dsl/expression/index.js';
export { ExpressionError, evaluate, FUNCTION_NAMES, parseExpression } from './dsl/expression/index.js';
export type { WorkflowResult } from './engine/engine.js';
export type { WorkflowEvent, WorkflowEventType, WorkflowOutput } from './engine/events.js';
export type { HaltedNode, RunState } from './engine/run-state.js';
export { parseRunState, safeParseRunState } from './engine/run-state.js';
export type { WorkflowErrorReason } from './errors.js';
export { WorkflowError } from './errors.js';
export type { AgentExecutorOptions } from './executors/agent-executor.js';
export { agentExecutor } from './executors/agent-executor.js';
export { functionExecutor, passThrough } from './executors/function-executor.js';
export type { HumanInputOptions } from './executors/human-input-executor.js';
export { humanInputExecutor } from './executors/human-input-executor.js';
export { subWorkflowExecutor } from './executors/sub-workflow-executor.js';
export type {
  Backoff,
  Edge,
  EdgeCondition,
  Executor,
  GraphNode,
  HaltRequest,
  NodeContext,
  NodeKind,
  NodeOptions,
  NodeResult,
  ResumeData,
  RetryOptions,
  SwitchCase,
  WorkflowState,
} from './graph/graph-types.js';
export { WorkflowBuilder } from './graph/workflow-builder.js';
export { WorkflowGraph } from './graph/workflow-graph.js';
export type {
  OrchestrationParticipants,
  OrchestrationProblem,
} from './orchestrations/build-orchestration.js';
export {
  orchestrationProblems,
  orchestrationWorkflow,
  rootTakesPart,
} from './orchestrations/build-orchestration.js';
export { concurrentAgent, concurrentWorkflow } from './orchestrations/concurrent.js';
export type { GroupChatOptions } from './orchestrations/group-chat.js';
export { groupChatAgent, groupChatWorkflow } from './orchestrations/group-chat.js';
export type { HandoffOptions } from './orchestrations/handoff.js';
export { handoffAgent, handoffWorkflow } from './orchestrations/handoff.js';
export type {
  OrchestrationConfig,
  OrchestrationMode,
  SafeParseOrchestrationResult,
} from './orchestrations/orchestration-config.js';
export {
  ORCHESTRATION_MODES,
  parseOrchestration,
  safeParseOrchestration,
} from './orchestrations/orchestration-config.js';
export type { PipelineOptions, PipelinePhase } from './orchestrations/pipeline.js';
export { DEFAULT_LOOP_UNTIL, pipelineAgent, pipelineWorkflow } from './orchestrations/pipeline.js';
export type { SequentialOptions } from './orchestrations/sequential.js';
export { sequentialAgent, sequentialWorkflow } from './orchestrations/sequential.js';
export type { VoteOptions } from './orchestrations/vote.js';
export { ballotOf, voteAgent, voteWorkflow } from './orchestrations/vote.js';
export type { ResumeOptions, RunOptions, WorkflowOptions } from './workflow.js';
export { Workflow, WorkflowRun } from './workflow.js';
