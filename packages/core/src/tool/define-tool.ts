import * as z from 'zod';
import type { JSONSchema } from '../json/json.js';
import type { ITool, ToolApprovalContext, ToolExecutionContext, ToolKind } from './tool.js';
import { createToolManifest, type ToolManifest } from './tool-manifest.js';
import { type ToolResult, toolFailure } from './tool-result.js';

/**
 * `Context` is the run context the tool reads as `ctx.context`: name it with
 * `defineTool<typeof schema, MyContext>(…)` or by annotating `execute`'s second parameter.
 */
export interface DefineToolOptions<Schema extends z.ZodType, Context = unknown> {
  name: string;
  description: string;
  parameters: Schema;
  execute(args: z.output<Schema>, context: ToolExecutionContext<Context>): Promise<ToolResult> | ToolResult;
  requiresApproval?:
    | boolean
    | ((args?: z.output<Schema>, context?: ToolApprovalContext<Context>) => boolean | Promise<boolean>);
  kind?: ToolKind;
  manifest?: ToolManifest;
  /** How long one call may run (sets `manifest.timeoutMs`); the agent's default otherwise. */
  timeoutMs?: number;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Converts a zod schema to the JSON Schema a model receives as tool parameters. */
export function zodToJsonSchema(schema: z.ZodType): JSONSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io: 'input', unrepresentable: 'any' });
  delete json.$schema;
  // A plain copy: zod's output carries a non-enumerable "~standard" property, which pushes every
  // JSON.stringify of a request body onto V8's slow path.
  return JSON.parse(JSON.stringify(json)) as JSONSchema;
}

/** `path: message; path: message` — how a zod failure reads in a tool error the model corrects. */
export function describeZodIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
}

/**
 * The ergonomic way to write a tool: arguments are parsed with the zod schema before `execute`
 * runs, and an invalid call is answered with a `ToolResult` error the model can correct.
 */
export function defineTool<Schema extends z.ZodType, Context = unknown>(
  options: DefineToolOptions<Schema, Context>,
): ITool<unknown, Context> {
  if (!TOOL_NAME.test(options.name)) {
    throw new TypeError(
      `defineTool: name "${options.name}" must be 1-64 letters, digits, "_" or "-" (the OpenAI tool name rule)`,
    );
  }
  const { requiresApproval } = options;
  const parameters = zodToJsonSchema(options.parameters);
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
    throw new TypeError(
      `defineTool: timeoutMs of "${options.name}" must be a positive number of milliseconds`,
    );
  }
  const tool: ITool<unknown, Context> = {
    name: options.name,
    description: options.description,
    parameters,
    // The zod schema is the source of `parameters`, so it validates for the loop too (and fast).
    validateArguments(args) {
      const parsed = options.parameters.safeParse(args);
      return parsed.success
        ? { ok: true, args: parsed.data }
        : { ok: false, error: describeZodIssues(parsed.error) };
    },
    async execute(args, context) {
      if (context.argumentsValidated) return options.execute(args as z.output<Schema>, context);
      const parsed = options.parameters.safeParse(args);
      if (!parsed.success) {
        return toolFailure(`Invalid arguments for ${options.name}: ${describeZodIssues(parsed.error)}`);
      }
      return options.execute(parsed.data, context);
    },
  };
  if (options.kind !== undefined) tool.kind = options.kind;
  if (options.timeoutMs !== undefined)
    tool.manifest = createToolManifest({ ...options.manifest, timeoutMs: options.timeoutMs });
  else if (options.manifest !== undefined) tool.manifest = options.manifest;
  if (requiresApproval !== undefined) {
    tool.requiresApproval =
      typeof requiresApproval === 'function'
        ? (args, context) => {
            if (args === undefined) return requiresApproval(undefined, context);
            const parsed = options.parameters.safeParse(args);
            return requiresApproval(parsed.success ? parsed.data : undefined, context);
          }
        : () => requiresApproval;
  }
  return tool;
}
