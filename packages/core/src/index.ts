export type {
  ApprovalResponse,
  CacheBreakpoint,
  ChatClientRunOptions,
  IChatClient,
  ModelMetadata,
  ModelOptions,
  OutputSchema,
  ToolChoice,
} from './chat-client/chat-client.js';
export { inputBudget } from './chat-client/chat-client.js';
export type {
  ContextResult,
  IContextProvider,
  IndexProgress,
  IndexRefreshOptions,
  InvokedContext,
  InvokingContext,
} from './context/context-provider.js';
export type { ChatClientErrorOptions, TimeoutPhase, ValidationIssue } from './errors/error-classes.js';
export {
  ApprovalError,
  CancelledError,
  ChatClientError,
  ConfigError,
  MemoryError,
  OutputError,
  PluginError,
  ScriptError,
  SessionConflictError,
  SessionError,
  TimeoutError,
  ToolError,
  ValidationError,
} from './errors/error-classes.js';
export type { RafErrorCode, RafErrorOptions } from './errors/raf-error.js';
export { getErrorMessage, RafError } from './errors/raf-error.js';
export type { JSONObject, JSONSchema, JSONValue } from './json/json.js';
export {
  ATTACHMENT_BODY_MAX_BYTES,
  ATTACHMENT_MAX_BYTES,
  ATTACHMENT_MEDIA_TYPES,
  attachmentMediaType,
  attachmentProblem,
} from './messages/attachment-limits.js';
export type { ChatMessage, MessageRole, MessageSource, ToolCall } from './messages/chat-message.js';
export {
  assistantMessage,
  cloneMessage,
  systemMessage,
  toolMessage,
  userMessage,
} from './messages/chat-message.js';
export type {
  ContentCapabilities,
  ContentPart,
  FilePart,
  ImagePart,
  MessageContent,
  TextPart,
} from './messages/content-part.js';
export {
  base64ByteLength,
  contentParts,
  contentText,
  describeContent,
  describePart,
  filePart,
  hasMediaParts,
  imagePart,
  isContentPart,
  mediaTypeOfName,
  messageText,
  partForFile,
  textPart,
  unsupportedContentProblem,
  withinCapabilities,
} from './messages/content-part.js';
export type {
  ContextKindFactory,
  Declaration,
  ModelProviderFactory,
  NamedMcpServer,
  PluginBuildContext,
  RafPlugin,
  SourcePosition,
  ToolKindFactory,
} from './plugin/plugin.js';
export { definePlugin, PLUGIN_SPECIFICATION_VERSION } from './plugin/plugin.js';
export type { AgentResponse, CollectOptions } from './response/agent-response.js';
export {
  AgentResponseAccumulator,
  collectAgentResponse,
  StreamFailedError,
} from './response/agent-response.js';
export type { SafeParseScopePolicyResult } from './scope/scope-policy.js';
export {
  DEFAULT_SCOPE_POLICY,
  parseScopePolicy,
  resolveScopePolicy,
  SCOPE_POLICY_SPELLINGS,
  ScopePolicy,
  safeParseScopePolicy,
} from './scope/scope-policy.js';
export type { IScopeTool } from './scope/scope-tool.js';
export { isScopeTool } from './scope/scope-tool.js';
export type { ProtectedPath, WorkspaceScope } from './scope/workspace-scope.js';
export { scopeRoots } from './scope/workspace-scope.js';
export type { JournalAppendOptions, JournalEntry, SessionJournal } from './session/journal.js';
export { foldJournal } from './session/journal.js';
export { PlainSession } from './session/plain-session.js';
export type { SecretStore } from './session/secret-store.js';
export type {
  AcquireLeaseOptions,
  ISession,
  ISessionStore,
  PendingApprovalBatch,
  SessionLease,
  SessionSaveOptions,
  SessionSnapshot,
  SessionStoreOptions,
  SuspendedCall,
} from './session/session.js';
export { approvalBatchKey, DEFAULT_LEASE_WAIT_MS, providerStateKey } from './session/session.js';
export type { StoreLocation } from './session/store-url.js';
export { DEFAULT_STORE_URL, parseStoreUrl, redactStoreUrl } from './session/store-url.js';
export type { DefineToolOptions } from './tool/define-tool.js';
export { defineTool, describeZodIssues, zodToJsonSchema } from './tool/define-tool.js';
export type {
  InputRequest,
  ITool,
  RunContextField,
  ToolApprovalContext,
  ToolCallInfo,
  ToolDefinition,
  ToolExecutionContext,
  ToolKind,
  ToolResume,
} from './tool/tool.js';
export { toolRequiresApproval, toToolDefinition } from './tool/tool.js';
export type { ExecutionMode, ToolCategory, ToolManifest, WorkerRoutingHint } from './tool/tool-manifest.js';
export { createToolManifest, DEFAULT_TOOL_MANIFEST } from './tool/tool-manifest.js';
export type { SafeParseToolResult, ToolResult } from './tool/tool-result.js';
export {
  parseToolResult,
  safeParseToolResult,
  serializeToolResult,
  toolFailure,
  toolResultMessage,
  toolSuccess,
} from './tool/tool-result.js';
export type {
  AgentResponseUpdate,
  AgentResponseUpdateType,
  ErrorUpdate,
  FinishReason,
  FinishUpdate,
  InputAnswer,
  InputRequestUpdate,
  ReasoningDeltaUpdate,
  ResponseMetadataUpdate,
  TextDeltaUpdate,
  ToolApprovalRequestUpdate,
  ToolCallArgsUpdate,
  ToolCallEndUpdate,
  ToolCalledUpdate,
  ToolCallStartUpdate,
  ToolProgressUpdate,
  UsageUpdate,
  WarningUpdate,
} from './updates/agent-response-update.js';
export { FINISH_REASONS } from './updates/agent-response-update.js';
export type { Usage } from './updates/usage.js';
export { addUsage, cacheHitRatio } from './updates/usage.js';
