export type { ContextFits, SubAgentsOptions } from './agent/agent-builder.js';
export { AgentBuilder } from './agent/agent-builder.js';
export type { AgentInput, AgentRunArgs, AgentRunOptions } from './agent/agent-run-options.js';
export { ChatClientAgent } from './agent/chat-client-agent.js';
export { DEFAULT_DENIAL_REASON } from './approval/approval-batch.js';
export type { ApprovalRequiredToolOptions } from './approval/approval-required-tool.js';
export { ApprovalRequiredTool } from './approval/approval-required-tool.js';
export { createApplyPatchTool } from './builtin-tools/apply-patch.js';
// For checks that compare two workspaces' allowlists (a sub-agent's is never wider, SPEC §7.1).
export { allowedCommandsOf, isCommandAllowed } from './builtin-tools/command-allowlist.js';
export type { FileToolName } from './builtin-tools/index.js';
export { createFileTool, createFileTools, FILE_TOOL_NAMES } from './builtin-tools/index.js';
export type { CompressionProviderOptions } from './compression/compression-provider.js';
export { CompressionProvider } from './compression/compression-provider.js';
export type {
  CompressionContext,
  ICompressionStrategy,
  ITokenCounter,
} from './compression/compression-types.js';
export type { TokenBudgetOptions } from './compression/strategies.js';
export { CompressionPipeline, SlidingWindowStrategy, TokenBudgetStrategy } from './compression/strategies.js';
export type { SummarizeOptions } from './compression/summarize-strategy.js';
export { SummarizeStrategy } from './compression/summarize-strategy.js';
export { EstimateTokenCounter, ExactTokenCounter } from './compression/token-counters.js';
export { PathChangedError, PathRejectedError, ToolFailure } from './errors/tool-errors.js';
export { bareHost, bearerToken, isLoopbackHost, newLocalToken, sameToken } from './io/local-credential.js';
export type { ParsedYaml, YamlLimitOptions, YamlProblem } from './io/parse-yaml.js';
export { parseYaml, parseYamlLimited, YAML_LIMITS } from './io/parse-yaml.js';
export { sweepTempFiles } from './io/temp-sweep.js';
export { seedBundle } from './memory/bundle-template.js';
export type { ConsolidationStats } from './memory/consolidation-queue.js';
export { MemoryBundle } from './memory/memory-bundle.js';
export type { MemoryLanguage } from './memory/memory-notice.js';
export type { SuperBrainOptions, SuperBrainState } from './memory/super-brain-provider.js';
export { SuperBrainContextProvider } from './memory/super-brain-provider.js';
export type { BundleIssue, BundleIssueCode, BundleReport } from './memory/validate-bundle.js';
export { validateBundle } from './memory/validate-bundle.js';
export type { ChatClientDecorator } from './pipeline/chat-client-builder.js';
export { ChatClientBuilder, DelegatingChatClient } from './pipeline/chat-client-builder.js';
export type { InputRequestHandler } from './pipeline/input-requests.js';
export { checkInputAnswer, parseInputAnswer } from './pipeline/input-requests.js';
export type {
  LoopHooks,
  PrepareStep,
  PrepareStepInput,
  PrepareStepResult,
  StepResult,
  StepToolResult,
  StopCondition,
  StopConditionInput,
  ToolEndEvent,
  ToolStartEvent,
} from './pipeline/step-hooks.js';
export { hasToolCall, stepCountIs } from './pipeline/step-hooks.js';
export { ToolSuspension } from './pipeline/tool-suspension.js';
export { DEFAULT_TOOL_TIMEOUT_MS } from './pipeline/tool-timeouts.js';
export type { ToolView } from './pipeline/tool-view.js';
export { InMemoryHistoryProvider } from './providers/in-memory-history-provider.js';
/** The tool error a call in doubt gets (SPEC §14.1): `@raf/dbos` answers its in-doubt steps with it. */
export { INTERRUPTED_ERROR } from './run/interrupted-turn.js';
export { pendingApprovalRequests } from './run/pending-requests.js';
export type { RunEvent } from './run/run-events.js';
export { RunEventMapper } from './run/run-events.js';
export type { RunState, StateSlot } from './run/run-state.js';
export {
  defineStateSlot,
  parseRunState,
  pausedRunState,
  RUN_STATE_VERSION,
  readSlot,
  writeSlot,
} from './run/run-state.js';
export type { OutputSpec } from './run/structured-output.js';
export { inheritToolPolicy } from './runtime-policy/agent-projection.js';
export { BUILTIN_TOOL_MANIFESTS, manifestOf } from './runtime-policy/builtin-manifests.js';
export type { GovernanceStore } from './runtime-policy/governance-store.js';
export {
  DEFAULT_GOVERNANCE_FILE,
  FileGovernanceStore,
  InMemoryGovernanceStore,
} from './runtime-policy/governance-store.js';
export type { AgentGovernance, GovernanceSource } from './runtime-policy/governance-view.js';
export type {
  DiagnosedTool,
  RuntimeDiagnostic,
  RuntimeDiagnosticOptions,
} from './runtime-policy/runtime-diagnostic.js';
export { runtimeDiagnostic } from './runtime-policy/runtime-diagnostic.js';
export type {
  BlockedReason,
  Label,
  LabelLanguage,
  RuntimeRoute,
  RuntimeState,
} from './runtime-policy/runtime-labels.js';
export { RUNTIME_LABELS, routeOfState } from './runtime-policy/runtime-labels.js';
export type { ProjectionInput, ToolRuntime } from './runtime-policy/runtime-projection.js';
export { profileRoute, projectToolRuntime } from './runtime-policy/runtime-projection.js';
export type {
  AgentToolPolicy,
  GovernanceData,
  ToolGovernanceEntry,
  WorkerRoutingStrategy,
} from './runtime-policy/tool-governance.js';
export {
  aliasesOf,
  canonicalToolName,
  DEFAULT_CORE_TOOLS,
  emptyGovernance,
  governanceDataSchema,
  ToolGovernance,
  WORKER_ROUTING_STRATEGIES,
} from './runtime-policy/tool-governance.js';
export type { WorkerPolicy, WorkerSessionContext } from './runtime-policy/worker-policy.js';
export { buildSubprocessWorkerPolicy } from './runtime-policy/worker-policy.js';
export { AgentSession } from './sessions/agent-session.js';
export { FileSessionStore } from './sessions/file-session-store.js';
export type { SafeParseSessionResult } from './sessions/session-snapshot-schema.js';
export {
  parseJournalEntry,
  parseSessionSnapshot,
  safeParseSessionSnapshot,
} from './sessions/session-snapshot-schema.js';
export {
  cleanupExpiredSessions,
  InMemorySessionStore,
  ScopedSessionStore,
} from './sessions/session-stores.js';
export type { AgentSkill, SkillMetadata } from './skills/agent-skill.js';
export { defineSkill } from './skills/agent-skill.js';
export { AgentSkillsProvider } from './skills/agent-skills-provider.js';
export { combineSkillTools, isSkillTool } from './skills/skill-tools.js';
export type { CreateStoreOptions, PostgresStoreModule, RafStore } from './store/create-store.js';
export { createStore } from './store/create-store.js';
export { InMemorySecretStore, SqliteSecretStore } from './store/secret-stores.js';
export { SqliteGovernanceStore } from './store/sqlite-governance-store.js';
export { SqliteSessionStore } from './store/sqlite-session-store.js';
export type { LeaseHolder } from './store/store-kit.js';
export { sessionStoreKit } from './store/store-kit.js';
export { delegationTimedOut, delegationTimeoutMs } from './sub-agents/delegation-timeout.js';
export type { DelegationToolsOptions } from './sub-agents/delegation-tools.js';
export { createDelegationTools } from './sub-agents/delegation-tools.js';
export { answersFor, raisedRequests } from './sub-agents/paused-run.js';
export type { ProxiedAnswer, ProxiedCall, SubAgentRoutes } from './sub-agents/proxied-call.js';
export { answerProxiedCall, subAgentRoutes } from './sub-agents/proxied-call.js';
export { RunTally } from './sub-agents/run-tally.js';
export type {
  DelegationRunner,
  SubAgentFactory,
  SubAgentFactoryResult,
  SubAgentOutcome,
  SubAgentRunner,
  SubAgentRunRequest,
  SubAgentSpec,
  WorkerFactoryRef,
} from './sub-agents/sub-agent.js';
export type { ParentOfSubAgents } from './sub-agents/sub-agent-projection.js';
export type { SubAgentRunnerOptions } from './sub-agents/sub-agent-runner.js';
export { createSubAgentRunner } from './sub-agents/sub-agent-runner.js';
export { SubAgentsProvider } from './sub-agents/sub-agents-provider.js';
export { workerModuleFolder } from './sub-agents/worker-process.js';
export type { Delegation } from './sub-agents/worker-protocol.js';
export { delegationSchema } from './sub-agents/worker-protocol.js';
export type { TelemetryOptions } from './telemetry/run-trace.js';
export type { ArgumentCheck } from './tools/argument-validator.js';
export { checkArguments } from './tools/argument-validator.js';
export type {
  ConfinedFile,
  ConfinedRefusal,
  ConfinedWalk,
  ConfinedWalkOptions,
} from './workspace/confined-folder.js';
export { ConfinedFolder } from './workspace/confined-folder.js';
export { symbolicLinkOnTheWay } from './workspace/link-on-the-way.js';
export { workspaceEnvOf } from './workspace/operations/command-environment.js';
export type { LocalSearchOptions } from './workspace/operations/local-search-operations.js';
export type { LocalToolOperationsOptions } from './workspace/operations/local-tool-operations.js';
export { createLocalToolOperations } from './workspace/operations/local-tool-operations.js';
export { groupWatchdog, withParentDeathSignal } from './workspace/operations/parent-death.js';
export type { ReadInFolderOptions } from './workspace/operations/read-in-folder.js';
export { readFileInFolder } from './workspace/operations/read-in-folder.js';
export type {
  CapturedOutput,
  DirectoryEntry,
  EntryInfo,
  FindRequest,
  FsOperations,
  ProcessOperations,
  ProcessRequest,
  ProcessResult,
  SandboxRequest,
  SearchMatch,
  SearchOperations,
  SearchOutcome,
  SearchRequest,
  SkippedFile,
  ToolOperations,
} from './workspace/operations/tool-operations.js';
export type { ProtectedPathRule } from './workspace/protected-paths.js';
export type {
  WorkspaceContextProviderOptions,
  WorkspaceState,
} from './workspace/workspace-context-provider.js';
export { WorkspaceContextProvider } from './workspace/workspace-context-provider.js';
