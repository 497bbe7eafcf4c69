import type { JSONSchema } from '../json/json.js';
import type { ToolManifest } from './tool-manifest.js';
import type { ToolResult } from './tool-result.js';

/** Declarative kind of a tool (the YAML `kind`): `file`, `web`, `function`, `mcp`, … */
export type ToolKind = string;

export interface ToolExecutionContext {
  /** Fires when the run is cancelled or the tool times out; pass it to HTTP calls and child processes. */
  signal: AbortSignal;
  callId: string;
  sessionId?: string;
  /** Optional progress line for long work (shown by the CLI while the tool runs). */
  reportProgress?: (message: string) => void;
  /**
   * True when the tool loop already checked the arguments with this tool's `validateArguments`
   * and passes the value it returned: `execute` need not parse them again.
   */
  argumentsValidated?: boolean;
  /**
   * True when a human approved this call. A tool that gates its own calls refuses an unapproved
   * call that needs approval when it runs (its target changed after the gate was asked).
   */
  approved?: boolean;
  /** The `resolveTarget` value the human approved: a tool now acting on another target refuses. */
  approvedTarget?: string;
}

/** What the model is told about a tool. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JSONSchema;
}

export interface ITool<Args = unknown> extends ToolDefinition {
  kind?: ToolKind;
  manifest?: ToolManifest;
  /**
   * Whether this call needs a human decision first. Called with the parsed arguments per call;
   * called without arguments to ask "can this tool ever be gated" (for `explain`).
   */
  requiresApproval?(args?: Args): boolean | Promise<boolean>;
  /**
   * Checks a call's parsed arguments (a JSON object) before execution; without it the tool loop
   * checks them against `parameters` with a JSON Schema validator. A failure describes what is
   * wrong. `args`, when returned, is what `execute` receives instead of the raw object, with
   * `context.argumentsValidated` set (e.g. a zod schema's output).
   */
  validateArguments?(args: unknown): { ok: true; args?: unknown } | { ok: false; error: string };
  /** The path or command a call will act on, shown in approval prompts and bound to the approval. */
  resolveTarget?(args: Args): string | undefined | Promise<string | undefined>;
  execute(args: Args, context: ToolExecutionContext): Promise<ToolResult>;
}

/** Asks a tool whether a call needs approval; tools without the method never do. */
export async function toolRequiresApproval<Args>(tool: ITool<Args>, args?: Args): Promise<boolean> {
  return tool.requiresApproval ? await tool.requiresApproval(args) : false;
}

/** The definition sent to the model, without the runtime parts. */
export function toToolDefinition(tool: ToolDefinition): ToolDefinition {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}
