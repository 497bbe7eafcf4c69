import { RafError, type RafErrorOptions } from './raf-error.js';

const configKey = 'raf.error.ConfigError';
const configSymbol = Symbol.for(configKey);
/** Invalid configuration: YAML, builder calls, options. */
export class ConfigError extends RafError {
  private readonly [configSymbol] = true;
  constructor(message: string, options?: RafErrorOptions) {
    super('RAF_CONFIG', message, options);
    this.name = 'ConfigError';
  }
  static override isInstance(error: unknown): error is ConfigError {
    return RafError.hasMarker(error, configKey);
  }
}

const outputKey = 'raf.error.OutputError';
const outputSymbol = Symbol.for(outputKey);
/**
 * The model's final answer is not the structured output asked for (not JSON, or not matching the
 * output schema), after the one repair round. `text` is the last answer, `issues` what is wrong.
 */
export class OutputError extends RafError {
  private readonly [outputSymbol] = true;
  readonly text: string;
  readonly issues: readonly string[];
  constructor(message: string, text: string, issues: readonly string[], options?: RafErrorOptions) {
    super('RAF_OUTPUT', message, options);
    this.name = 'OutputError';
    this.text = text;
    this.issues = issues;
  }
  static override isInstance(error: unknown): error is OutputError {
    return RafError.hasMarker(error, outputKey);
  }
}

const validationKey = 'raf.error.ValidationError';
const validationSymbol = Symbol.for(validationKey);
export interface ValidationIssue {
  path: readonly (string | number)[];
  message: string;
}
/** Input that failed a schema: tool arguments, parsed documents, serialized state. */
export class ValidationError extends RafError {
  private readonly [validationSymbol] = true;
  readonly issues: readonly ValidationIssue[];
  constructor(message: string, issues: readonly ValidationIssue[] = [], options?: RafErrorOptions) {
    super('RAF_VALIDATION', message, options);
    this.name = 'ValidationError';
    this.issues = issues;
  }
  static override isInstance(error: unknown): error is ValidationError {
    return RafError.hasMarker(error, validationKey);
  }
}

const toolKey = 'raf.error.ToolError';
const toolSymbol = Symbol.for(toolKey);
/** A tool crashed or was misused. The model never sees the stack; it sees `Framework error: …`. */
export class ToolError extends RafError {
  private readonly [toolSymbol] = true;
  readonly toolName: string | undefined;
  constructor(message: string, options: RafErrorOptions & { toolName?: string } = {}) {
    super('RAF_TOOL', message, options);
    this.name = 'ToolError';
    this.toolName = options.toolName;
  }
  static override isInstance(error: unknown): error is ToolError {
    return RafError.hasMarker(error, toolKey);
  }
}

const chatClientKey = 'raf.error.ChatClientError';
const chatClientSymbol = Symbol.for(chatClientKey);
export interface ChatClientErrorOptions extends RafErrorOptions {
  provider?: string;
  url?: string;
  status?: number;
  retryable?: boolean;
  responseBody?: string;
}
/** A model request failed: connection, HTTP status, or a protocol error. */
export class ChatClientError extends RafError {
  private readonly [chatClientSymbol] = true;
  readonly provider: string | undefined;
  readonly url: string | undefined;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly responseBody: string | undefined;
  constructor(message: string, options: ChatClientErrorOptions = {}) {
    super('RAF_CHAT_CLIENT', message, options);
    this.name = 'ChatClientError';
    this.provider = options.provider;
    this.url = options.url;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.responseBody = options.responseBody;
  }
  static override isInstance(error: unknown): error is ChatClientError {
    return RafError.hasMarker(error, chatClientKey);
  }
}

const timeoutKey = 'raf.error.TimeoutError';
const timeoutSymbol = Symbol.for(timeoutKey);
export type TimeoutPhase = 'connect' | 'firstChunk' | 'idle' | 'total' | 'tool';
/** A time limit ran out. `phase` says which one. */
export class TimeoutError extends RafError {
  private readonly [timeoutSymbol] = true;
  readonly phase: TimeoutPhase;
  readonly timeoutMs: number;
  constructor(message: string, options: RafErrorOptions & { phase: TimeoutPhase; timeoutMs: number }) {
    super('RAF_TIMEOUT', message, options);
    this.name = 'TimeoutError';
    this.phase = options.phase;
    this.timeoutMs = options.timeoutMs;
  }
  static override isInstance(error: unknown): error is TimeoutError {
    return RafError.hasMarker(error, timeoutKey);
  }
}

const cancelledKey = 'raf.error.CancelledError';
const cancelledSymbol = Symbol.for(cancelledKey);
/** The caller's `AbortSignal` fired. Never retried. */
export class CancelledError extends RafError {
  private readonly [cancelledSymbol] = true;
  constructor(message = 'Agent run cancelled', options?: RafErrorOptions) {
    super('RAF_CANCELLED', message, options);
    this.name = 'CancelledError';
  }
  static override isInstance(error: unknown): error is CancelledError {
    return RafError.hasMarker(error, cancelledKey);
  }
}

const approvalKey = 'raf.error.ApprovalError';
const approvalSymbol = Symbol.for(approvalKey);
/** Approval responses that do not match the pending batch (unknown, forged or duplicate ids). */
export class ApprovalError extends RafError {
  private readonly [approvalSymbol] = true;
  constructor(message: string, options?: RafErrorOptions) {
    super('RAF_APPROVAL', message, options);
    this.name = 'ApprovalError';
  }
  static override isInstance(error: unknown): error is ApprovalError {
    return RafError.hasMarker(error, approvalKey);
  }
}

const sessionKey = 'raf.error.SessionError';
const sessionSymbol = Symbol.for(sessionKey);
/** A session could not be loaded, saved or restored (corrupt file, wrong version). */
export class SessionError extends RafError {
  private readonly [sessionSymbol] = true;
  constructor(message: string, options?: RafErrorOptions) {
    super('RAF_SESSION', message, options);
    this.name = 'SessionError';
  }
  static override isInstance(error: unknown): error is SessionError {
    return RafError.hasMarker(error, sessionKey);
  }
}

const pluginKey = 'raf.error.PluginError';
const pluginSymbol = Symbol.for(pluginKey);
/** A plugin is missing, of an unsupported specification version, or failed to build. */
export class PluginError extends RafError {
  private readonly [pluginSymbol] = true;
  constructor(message: string, options?: RafErrorOptions) {
    super('RAF_PLUGIN', message, options);
    this.name = 'PluginError';
  }
  static override isInstance(error: unknown): error is PluginError {
    return RafError.hasMarker(error, pluginKey);
  }
}

const scriptKey = 'raf.error.ScriptError';
const scriptSymbol = Symbol.for(scriptKey);
/** A test double (scripted client, mock server, replay file) was asked for more than its script holds. */
export class ScriptError extends RafError {
  private readonly [scriptSymbol] = true;
  constructor(message: string, options?: RafErrorOptions) {
    super('RAF_SCRIPT', message, options);
    this.name = 'ScriptError';
  }
  static override isInstance(error: unknown): error is ScriptError {
    return RafError.hasMarker(error, scriptKey);
  }
}

const memoryKey = 'raf.error.MemoryError';
const memorySymbol = Symbol.for(memoryKey);
/** A memory bundle could not be read, locked or written (super-brain). */
export class MemoryError extends RafError {
  private readonly [memorySymbol] = true;
  constructor(message: string, options?: RafErrorOptions) {
    super('RAF_MEMORY', message, options);
    this.name = 'MemoryError';
  }
  static override isInstance(error: unknown): error is MemoryError {
    return RafError.hasMarker(error, memoryKey);
  }
}

const sessionConflictKey = 'raf.error.SessionConflictError';
const sessionConflictSymbol = Symbol.for(sessionConflictKey);
/**
 * Another process got to the session first (SPEC §14.1): a compare-and-set save found a newer
 * revision (`revision`), the lease stayed held past the wait (`lease`), or the paused approval batch
 * was already resumed (`claimed`). The CLI exits 5 on it.
 */
export class SessionConflictError extends RafError {
  private readonly [sessionConflictSymbol] = true;
  constructor(
    readonly sessionId: string,
    readonly kind: 'revision' | 'lease' | 'claimed',
    message: string,
    options?: RafErrorOptions,
  ) {
    super('RAF_SESSION_CONFLICT', message, options);
    this.name = 'SessionConflictError';
  }
  static override isInstance(error: unknown): error is SessionConflictError {
    return RafError.hasMarker(error, sessionConflictKey);
  }
}
