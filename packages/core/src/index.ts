export type { IChatClient, ChatClientRunOptions, ModelOptions, ModelMetadata, ApprovalResponse, ToolChoice } from './chat-client/chat-client.js';
export { inputBudget } from './chat-client/chat-client.js';
export type { IContextProvider, ContextResult, InvokingContext, InvokedContext } from './context/context-provider.js';
export {
  ApprovalError,
  CancelledError,
  ChatClientError,
  ConfigError,
  PluginError,
  ScriptError,
  SessionError,
  TimeoutError,
  ToolError,
  ValidationError,
} from './errors/error-classes.js';
export type { ChatClientErrorOptions, TimeoutPhase, ValidationIssue } from './errors/error-classes.js';
export { RafError, getErrorMessage } from './errors/raf-error.js';
export type { RafErrorCode, RafErrorOptions } from './errors/raf-error.js';
export type { JSONObject, JSONSchema, JSONValue } from './json/json.js';
export { assistantMessage, systemMessage, toolMessage, userMessage } from './messages/chat-message.js';
export type { ChatMessage, MessageRole, MessageSource, ToolCall } from './messages/chat-message.js';
export { PLUGIN_SPECIFICATION_VERSION, definePlugin } from './plugin/plugin.js';
export type {
  ContextKindFactory,
  Declaration,
  ModelProviderFactory,
  PluginBuildContext,
  RafPlugin,
  SourcePosition,
  ToolKindFactory,
} from './plugin/plugin.js';
export { StreamFailedError, collectAgentResponse } from './response/agent-response.js';
export type { AgentResponse, CollectOptions } from './response/agent-response.js';
export {
  DEFAULT_SCOPE_POLICY,
  SCOPE_POLICY_SPELLINGS,
  ScopePolicy,
  parseScopePolicy,
  resolveScopePolicy,
  safeParseScopePolicy,
} from './scope/scope-policy.js';
export type { SafeParseScopePolicyResult } from './scope/scope-policy.js';
export { isScopeTool } from './scope/scope-tool.js';
export type { IScopeTool } from './scope/scope-tool.js';
export { scopeRoots } from './scope/workspace-scope.js';
export type { WorkspaceScope } from './scope/workspace-scope.js';
export { providerStateKey } from './session/session.js';
export type { ISession, ISessionStore, PendingApprovalBatch, SessionSnapshot, SessionStoreOptions } from './session/session.js';
export { defineTool, zodToJsonSchema } from './tool/define-tool.js';
export type { DefineToolOptions } from './tool/define-tool.js';
export { DEFAULT_TOOL_MANIFEST, createToolManifest } from './tool/tool-manifest.js';
export type { ExecutionMode, ToolCategory, ToolManifest, WorkerRoutingHint } from './tool/tool-manifest.js';
export { parseToolResult, safeParseToolResult, serializeToolResult, toolFailure, toolSuccess } from './tool/tool-result.js';
export type { SafeParseToolResult, ToolResult } from './tool/tool-result.js';
export { toToolDefinition, toolRequiresApproval } from './tool/tool.js';
export type { ITool, ToolDefinition, ToolExecutionContext, ToolKind } from './tool/tool.js';
export { FINISH_REASONS } from './updates/agent-response-update.js';
export type {
  AgentResponseUpdate,
  AgentResponseUpdateType,
  ErrorUpdate,
  FinishReason,
  FinishUpdate,
  ReasoningDeltaUpdate,
  ResponseMetadataUpdate,
  TextDeltaUpdate,
  ToolApprovalRequestUpdate,
  ToolCallArgsUpdate,
  ToolCallEndUpdate,
  ToolCallStartUpdate,
  ToolCalledUpdate,
  UsageUpdate,
  WarningUpdate,
} from './updates/agent-response-update.js';
export { addUsage, cacheHitRatio } from './updates/usage.js';
export type { Usage } from './updates/usage.js';
