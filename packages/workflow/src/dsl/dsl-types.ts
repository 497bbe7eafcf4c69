import type { ITool, JSONValue, ToolResult } from '@raf/core';
import type { AgentLike } from '../agent/agent-like.js';

export type ActionPath = (string | number)[];

/** A problem found while compiling, at a path of the workflow file (`trigger.actions.2.condition`). */
export interface DslProblem {
  path: ActionPath;
  message: string;
  severity: 'error' | 'warning';
}

export interface HttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  body?: { kind: 'json' | 'raw'; value: JSONValue };
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: JSONValue;
}

/**
 * What actions reach outside the workflow through. Each is optional: a file that uses an action
 * whose service is missing does not compile, with the message `missing(kind)` gives.
 */
export interface DslServices {
  /** `InvokeAgent`: the agent named in the action. */
  agent?(name: string): AgentLike | undefined;
  /** `InvokeFunctionTool`: the tool with this function name. */
  functionTool?(name: string): Promise<ITool | undefined>;
  /** `ExecuteCode` (through `@raf/sandbox`). */
  executeCode?(request: { language: string; code: string }, signal: AbortSignal): Promise<ToolResult>;
  /** `InvokeMcpTool` (through `@raf/mcp`). */
  invokeMcpTool?(
    request: { serverUrl: string; toolName: string; headers: Record<string, string>; arguments: JSONValue },
    signal: AbortSignal,
  ): Promise<ToolResult>;
  /** `HttpRequestAction` (through the SSRF guard of `@raf/web`). */
  httpRequest?(request: HttpRequest, signal: AbortSignal): Promise<HttpResponse>;
  /** Why an action's service is missing (default: the package to install). */
  missing?(kind: 'ExecuteCode' | 'InvokeMcpTool' | 'HttpRequestAction'): string;
}

/** A `kind: workflow` document as written (either key spelling). */
export interface WorkflowDocument {
  name: string;
  description?: string;
  trigger?: { kind?: string; id?: string; actions?: unknown[] };
}
