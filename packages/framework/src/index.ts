export { AgentBuilder } from './agent/agent-builder.js';
export type { AgentInput, AgentRunOptions } from './agent/agent-run-options.js';
export type { AgentCompression, ChatClientAgentConfig } from './agent/chat-client-agent.js';
export { ChatClientAgent } from './agent/chat-client-agent.js';
export type { ProviderContext } from './agent/provider-chain.js';
export { invokeProviders, notifyProviders } from './agent/provider-chain.js';
export type { ApprovalDecisions } from './approval/approval-batch.js';
export { checkApprovals, DEFAULT_DENIAL_REASON } from './approval/approval-batch.js';
export type { ApprovalRequiredToolOptions } from './approval/approval-required-tool.js';
export { ApprovalRequiredTool } from './approval/approval-required-tool.js';
export { createApplyPatchTool } from './builtin-tools/apply-patch.js';
export type { BuiltinCall, BuiltinToolSpec, PathArgument, ScopeLabel } from './builtin-tools/builtin-tool.js';
export { BuiltinTool } from './builtin-tools/builtin-tool.js';
export { isCommandAllowed, splitCommand } from './builtin-tools/command-allowlist.js';
export { createEditFileTool } from './builtin-tools/edit-file.js';
export { createFindFilesTool } from './builtin-tools/find-files.js';
export type { FileToolName } from './builtin-tools/index.js';
export { createFileTool, createFileTools, FILE_TOOL_NAMES } from './builtin-tools/index.js';
export { createInspectFileTool } from './builtin-tools/inspect-file.js';
export { createListFilesTool } from './builtin-tools/list-files.js';
export { createMakeDirectoryTool } from './builtin-tools/make-directory.js';
export { createMoveFileTool } from './builtin-tools/move-file.js';
export { createReadFileTool } from './builtin-tools/read-file.js';
export { createRemovePathTool } from './builtin-tools/remove-path.js';
export type { RunCommandOptions } from './builtin-tools/run-command.js';
export { createRunCommandTool } from './builtin-tools/run-command.js';
export { createSearchFileTool } from './builtin-tools/search-file.js';
export { ToolFailure } from './builtin-tools/tool-failure.js';
export { createWriteFileTool } from './builtin-tools/write-file.js';
export type { CompressionProviderOptions } from './compression/compression-provider.js';
export { CompressionProvider } from './compression/compression-provider.js';
export type {
  CompressionContext,
  ICompressionStrategy,
  ITokenCounter,
} from './compression/compression-types.js';
export type { MessageGroup } from './compression/message-groups.js';
export { groupMessages } from './compression/message-groups.js';
export type { TokenBudgetOptions } from './compression/strategies.js';
export { CompressionPipeline, SlidingWindowStrategy, TokenBudgetStrategy } from './compression/strategies.js';
export type { SummarizeOptions } from './compression/summarize-strategy.js';
export { SummarizeStrategy } from './compression/summarize-strategy.js';
export { EstimateTokenCounter, ExactTokenCounter } from './compression/token-counters.js';
export type { TopicPage } from './memory/bundle-layout.js';
export { pageForTopic } from './memory/bundle-layout.js';
export { seedBundle } from './memory/bundle-template.js';
export type {
  ConsolidationJob,
  ConsolidationOutcome,
  ConsolidationStats,
} from './memory/consolidation-queue.js';
export type { SavedEntry } from './memory/memory-bundle.js';
export { MemoryBundle } from './memory/memory-bundle.js';
export type { MemoryLanguage } from './memory/memory-notice.js';
export { memoryNotice } from './memory/memory-notice.js';
export { createMemoryRecallTool, createMemorySaveTool } from './memory/memory-tools.js';
export type { RecallHit } from './memory/recall-index.js';
export type { SuperBrainOptions, SuperBrainState } from './memory/super-brain-provider.js';
export {
  SUPER_BRAIN_PROVIDER_NAME,
  SUPER_BRAIN_SKILL,
  SuperBrainContextProvider,
} from './memory/super-brain-provider.js';
export type { BundleIssue, BundleIssueCode, BundleReport } from './memory/validate-bundle.js';
export { repairIndexes, validateBundle } from './memory/validate-bundle.js';
export type { ChatClientDecorator } from './pipeline/chat-client-builder.js';
export { ChatClientBuilder, DelegatingChatClient, findInPipeline } from './pipeline/chat-client-builder.js';
export type { FunctionInvokingOptions } from './pipeline/function-invoking-chat-client.js';
export { FunctionInvokingChatClient } from './pipeline/function-invoking-chat-client.js';
export {
  HISTORY_PROVIDER_NAME,
  InMemoryHistoryProvider,
  isHistoryProvider,
} from './providers/in-memory-history-provider.js';
export { BUILTIN_TOOL_MANIFESTS, manifestOf, TOOL_NAME_ALIASES } from './runtime-policy/builtin-manifests.js';
export type { GovernanceStore } from './runtime-policy/governance-store.js';
export {
  DEFAULT_GOVERNANCE_FILE,
  FileGovernanceStore,
  InMemoryGovernanceStore,
} from './runtime-policy/governance-store.js';
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
  ToolGovernance,
  WORKER_ROUTING_STRATEGIES,
} from './runtime-policy/tool-governance.js';
export type { WorkerPolicy, WorkerSessionContext } from './runtime-policy/worker-policy.js';
export { buildSubprocessWorkerPolicy } from './runtime-policy/worker-policy.js';
export { AgentSession } from './sessions/agent-session.js';
export { FileSessionStore } from './sessions/file-session-store.js';
export type { SafeParseSessionResult } from './sessions/session-snapshot-schema.js';
export { parseSessionSnapshot, safeParseSessionSnapshot } from './sessions/session-snapshot-schema.js';
export {
  cleanupExpiredSessions,
  InMemorySessionStore,
  ScopedSessionStore,
} from './sessions/session-stores.js';
export type { AgentSkill, SkillMetadata } from './skills/agent-skill.js';
export { defineSkill, loadSkillDirectory, parseSkillMarkdown, scanSkills } from './skills/agent-skill.js';
export {
  AgentSkillsProvider,
  SKILLS_PROVIDER_NAME,
  skillsInstructions,
} from './skills/agent-skills-provider.js';
export { createLoadSkillTool, createReadSkillResourceTool } from './skills/skill-tools.js';
export type { ArgumentCheck } from './tools/argument-validator.js';
export { checkArguments } from './tools/argument-validator.js';
export { mergeTools, ToolRegistry } from './tools/tool-registry.js';
export type { LocalSearchOptions } from './workspace/operations/local-search-operations.js';
export type { LocalToolOperationsOptions } from './workspace/operations/local-tool-operations.js';
export { createLocalToolOperations } from './workspace/operations/local-tool-operations.js';
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
export type { GuardFs, ResolvedPath, ResolveOptions, ScopeStatus } from './workspace/path-guard.js';
export { PathRejectedError, resolveInScope } from './workspace/path-guard.js';
export type { ProtectedPathRule, ProtectionDecision } from './workspace/protected-paths.js';
export type {
  WorkspaceContextProviderOptions,
  WorkspaceState,
} from './workspace/workspace-context-provider.js';
export { WORKSPACE_PROVIDER_NAME, WorkspaceContextProvider } from './workspace/workspace-context-provider.js';
