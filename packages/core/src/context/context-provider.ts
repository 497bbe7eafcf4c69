import type { JSONValue } from '../json/json.js';
import type { ChatMessage } from '../messages/chat-message.js';
import type { AgentResponse } from '../response/agent-response.js';
import type { ISession } from '../session/session.js';
import type { ITool } from '../tool/tool.js';

/** What a provider adds to one run. */
export interface ContextResult {
  /** Joined with the other providers' instructions by a blank line. */
  instructions?: string;
  messages?: ChatMessage[];
  /** Offered to the model for this run; the first provider to name a tool wins. */
  tools?: ITool[];
  /**
   * This provider's tools as they are now, read by the tool loop before each later round of the
   * run: a list that changed mid-run (an MCP server's `tools/list_changed`) reaches the model on
   * its next round. Return the same tools while nothing changed; a promise lets a provider finish
   * a refresh it knows is under way.
   */
  currentTools?: () => readonly ITool[] | Promise<readonly ITool[]>;
  /** Replace every context message accumulated before this provider (the caller's input stays). */
  replaceMessages?: boolean;
  /** Shown to the caller as `warning` updates of this run (e.g. "commands are not confined"). */
  warnings?: string[];
}

export interface InvokingContext {
  agentName: string;
  session: ISession;
  /** Context messages accumulated so far: history, then earlier providers' messages. */
  messages: readonly ChatMessage[];
  /** This run's input from the caller (not part of `messages`; never replaced). */
  input: readonly ChatMessage[];
  signal: AbortSignal;
}

export interface InvokedContext {
  agentName: string;
  session: ISession;
  requestMessages: readonly ChatMessage[];
  response?: AgentResponse;
  error?: unknown;
  signal: AbortSignal;
}

/** Progress of `IContextProvider.refreshIndex` (`raf index` draws it as a bar). */
export interface IndexProgress {
  /** `scan`: listing sources; `index`: one more item done; `done`: finished. */
  phase: 'scan' | 'index' | 'done';
  done: number;
  total: number;
  /** The file or page just handled. */
  item?: string;
}

export interface IndexRefreshOptions {
  signal?: AbortSignal;
  onProgress?: (progress: IndexProgress) => void;
}

export interface IContextProvider {
  readonly name: string;
  /** `history`, `workspace`, `skills`, `memory`, `mcp`, … */
  readonly kind: string;
  /** True when `onInvoking` may return tools: the agent is then wrapped in the tool loop. */
  readonly injectsTools?: boolean;
  onInvoking?(context: InvokingContext): ContextResult | Promise<ContextResult>;
  /** Called after every run, success or failure. */
  onInvoked?(context: InvokedContext): void | Promise<void>;
  /**
   * State worth showing in `raf inspect` (`details` of the context): an index's files, chunks,
   * last build. Must create and change nothing (it runs under `validate`/`inspect`).
   */
  describe?(): Promise<Record<string, JSONValue>>;
  /** Builds or refreshes what the provider indexes, now (`raf index`); returns a summary. */
  refreshIndex?(options?: IndexRefreshOptions): Promise<Record<string, JSONValue>>;
}
