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
export { AgentSession } from './sessions/agent-session.js';
export { FileSessionStore } from './sessions/file-session-store.js';
export type { SafeParseSessionResult } from './sessions/session-snapshot-schema.js';
export { parseSessionSnapshot, safeParseSessionSnapshot } from './sessions/session-snapshot-schema.js';
export {
  cleanupExpiredSessions,
  InMemorySessionStore,
  ScopedSessionStore,
} from './sessions/session-stores.js';
export type { ArgumentCheck } from './tools/argument-validator.js';
export { checkArguments } from './tools/argument-validator.js';
export { mergeTools, ToolRegistry } from './tools/tool-registry.js';
