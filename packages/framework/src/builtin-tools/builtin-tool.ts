import { homedir } from 'node:os';
import {
  describeZodIssues,
  type IScopeTool,
  type ITool,
  type JSONObject,
  scopeRoots,
  type ToolExecutionContext,
  type ToolManifest,
  type ToolResult,
  toolFailure,
  toolSuccess,
  type WorkspaceScope,
  zodToJsonSchema,
} from '@raf/core';
import type { z } from 'zod';
import { builtinManifest } from '../runtime-policy/builtin-manifests.js';
import { defaultToolOperations } from '../workspace/operations/local-tool-operations.js';
import type { ToolOperations } from '../workspace/operations/tool-operations.js';
import { PathRejectedError, type ResolvedPath, resolveInScope } from '../workspace/path-guard.js';
import { describeFsError, ToolFailure } from './tool-failure.js';

/** Where a call acted: inside the workspace, outside it, or a tool bound to no workspace. */
export type ScopeLabel = 'workspace' | 'outside_workspace' | 'none';

/** A path argument to guard, and whether a link in its last component is the target itself. */
export interface PathArgument {
  path: string;
  followFinalLink?: boolean;
}

export interface BuiltinCall<Args> {
  args: Args;
  /** The guarded path arguments, in the order `paths()` listed them. */
  paths: ResolvedPath[];
  scope: WorkspaceScope | undefined;
  ops: ToolOperations;
  label: ScopeLabel;
  context: ToolExecutionContext;
}

export interface BuiltinToolSpec<Schema extends z.ZodType> {
  name: string;
  description: string;
  parameters: Schema;
  /** The path arguments of a call (guarded before `run`). */
  paths(args: z.output<Schema>): PathArgument[];
  /** More reasons to ask under `ApproveOutside` than a path outside (run_command's commands). */
  asksFor?(args: z.output<Schema>, scope: WorkspaceScope): boolean;
  /** What an approval prompt shows and binds to; defaults to the resolved paths. */
  target?(args: z.output<Schema>, paths: ResolvedPath[]): string;
  run(call: BuiltinCall<z.output<Schema>>): Promise<JSONObject>;
}

/**
 * One of the built-in file and shell tools. Unbound, it acts relative to the current directory
 * and labels results `none`; `createScoped(scope)` binds it to a workspace whose policy decides
 * what happens outside: run (AllowAll), ask (ApproveOutside: only calls that reach outside), or
 * refuse with a tool error (DenyOutside).
 */
export class BuiltinTool<Schema extends z.ZodType> implements IScopeTool<z.output<Schema>> {
  readonly name: string;
  readonly description: string;
  readonly kind = 'file';
  readonly manifest: ToolManifest;

  constructor(
    private readonly spec: BuiltinToolSpec<Schema>,
    readonly scope?: WorkspaceScope,
    private readonly operations?: ToolOperations,
  ) {
    this.name = spec.name;
    this.description = spec.description;
    this.manifest = builtinManifest(spec.name);
  }

  // Computed on first use: building or inspecting an agent never needs the JSON Schema.
  private schema: ITool['parameters'] | undefined;

  get parameters(): ITool['parameters'] {
    this.schema ??= zodToJsonSchema(this.spec.parameters);
    return this.schema;
  }

  get ops(): ToolOperations {
    return this.operations ?? defaultToolOperations();
  }

  createScoped(scope: WorkspaceScope): BuiltinTool<Schema> {
    return new BuiltinTool(this.spec, scope, this.operations);
  }

  /** The same tool doing its I/O through another backend (a sandbox, a test double). */
  withOperations(operations: ToolOperations): BuiltinTool<Schema> {
    return new BuiltinTool(this.spec, this.scope, operations);
  }

  validateArguments(args: unknown): { ok: true } | { ok: false; error: string } {
    const parsed = this.spec.parameters.safeParse(args);
    return parsed.success ? { ok: true } : { ok: false, error: describeZodIssues(parsed.error) };
  }

  private effectiveScope(): WorkspaceScope {
    return this.scope ?? { root: process.cwd(), name: '', policy: 'AllowAll' };
  }

  private resolve(args: z.output<Schema>): Promise<ResolvedPath[]> {
    const scope = this.effectiveScope();
    return Promise.all(
      this.spec
        .paths(args)
        .map((p) =>
          resolveInScope(
            scope,
            p.path,
            this.ops.fs,
            p.followFinalLink === false ? { followFinalLink: false } : {},
          ),
        ),
    );
  }

  /**
   * Under `ApproveOutside`: true for calls that reach outside the workspace (and, without
   * arguments, true, so `explain` shows the tool as gated). Other policies never ask.
   */
  async requiresApproval(args?: z.output<Schema>): Promise<boolean> {
    if (this.scope?.policy !== 'ApproveOutside') return false;
    if (args === undefined) return true;
    const parsed = this.spec.parameters.safeParse(args);
    if (!parsed.success) return false;
    if (this.spec.asksFor?.(parsed.data, this.scope)) return true;
    try {
      return (await this.resolve(parsed.data)).some((p) => p.scope === 'outside_workspace');
    } catch {
      return false; // a rejected path fails in execute, whatever a human would say
    }
  }

  async resolveTarget(args: z.output<Schema>): Promise<string | undefined> {
    const parsed = this.spec.parameters.safeParse(args);
    if (!parsed.success) return undefined;
    const paths = await this.resolve(parsed.data).catch(() => undefined);
    if (!paths) return undefined;
    return this.spec.target ? this.spec.target(parsed.data, paths) : paths.map((p) => p.real).join(' -> ');
  }

  async execute(args: z.output<Schema>, context: ToolExecutionContext): Promise<ToolResult> {
    const parsed = this.spec.parameters.safeParse(args);
    if (!parsed.success)
      return toolFailure(`Invalid arguments for ${this.name}: ${describeZodIssues(parsed.error)}`);
    const requested = this.spec.paths(parsed.data);
    let paths: ResolvedPath[];
    try {
      paths = await this.resolve(parsed.data);
    } catch (error) {
      if (PathRejectedError.isInstance(error)) return toolFailure(error.message);
      return toolFailure(describeFsError(error, requested[0]?.path ?? ''));
    }
    const outside = paths.findIndex((p) => p.scope === 'outside_workspace');
    if (this.scope && outside >= 0 && this.scope.policy === 'DenyOutside') {
      const shown = requested[outside]?.path ?? paths[outside]?.real;
      return toolFailure(`Access denied: '${shown}' is outside workspace '${this.scope.name}'`);
    }
    const label: ScopeLabel = !this.scope ? 'none' : outside >= 0 ? 'outside_workspace' : 'workspace';
    try {
      const data = await this.spec.run({
        args: parsed.data,
        paths,
        scope: this.scope,
        ops: this.ops,
        label,
        context,
      });
      return toolSuccess({ ...data, scope: label });
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (ToolFailure.isInstance(error) || PathRejectedError.isInstance(error))
        return toolFailure(error.message);
      return toolFailure(describeFsError(error, requested[0]?.path ?? ''));
    }
  }
}

/** Paths never deleted or moved: a workspace root or what contains one, `/`, the home folder. */
export async function isProtectedPath(
  real: string,
  scope: WorkspaceScope | undefined,
  fs: Pick<ToolOperations['fs'], 'realpath'>,
): Promise<boolean> {
  const roots = await Promise.all(
    (scope ? scopeRoots(scope) : [process.cwd()]).map((root) => fs.realpath(root).catch(() => root)),
  );
  const contains = (outer: string, inner: string) =>
    inner === outer || inner.startsWith(outer.endsWith('/') ? outer : `${outer}/`);
  return real === '/' || contains(real, homedir()) || roots.some((root) => contains(real, root));
}
