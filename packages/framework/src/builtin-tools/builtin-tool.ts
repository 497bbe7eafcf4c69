import { homedir } from 'node:os';
import {
  type ContentPart,
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
import {
  type GuardFs,
  PathRejectedError,
  type ResolvedPath,
  resolveInScope,
} from '../workspace/path-guard.js';
import {
  type ProtectionIndex,
  protectionDecision,
  protectionIndex,
  protectionInside,
  protectionOf,
} from '../workspace/protected-paths.js';
import { builtinToolSchema } from './builtin-tool-schemas.js';
import { describeFsError, ToolFailure } from './tool-failure.js';

/**
 * A built-in tool's `run` puts media for the model under this key (an image `read_file` opened):
 * the result's `parts`, beside its JSON, which never holds them.
 */
export const RESULT_PARTS = Symbol('raf.resultParts');

/** Where a call acted: inside the workspace, outside it, or a tool bound to no workspace. */
export type ScopeLabel = 'workspace' | 'outside_workspace' | 'none';

/** A path argument to guard, and whether a link in its last component is the target itself. */
export interface PathArgument {
  path: string;
  followFinalLink?: boolean;
  /** `write` for a path the call changes (default `read`): protected paths are judged by it. */
  access?: 'read' | 'write';
  /** The call acts on everything below the path (remove, move): protected entries inside count. */
  tree?: boolean;
}

/** What `asksFor` may look at besides the arguments. */
export interface AskContext {
  scope: WorkspaceScope;
  paths: ResolvedPath[];
  fs: GuardFs;
  protection: ProtectionIndex;
}

export interface BuiltinCall<Args> {
  args: Args;
  /** The guarded path arguments, in the order `paths()` listed them. */
  paths: ResolvedPath[];
  scope: WorkspaceScope | undefined;
  ops: ToolOperations;
  label: ScopeLabel;
  context: ToolExecutionContext;
  /** The protected paths of the scope (a search drops results among them). */
  protection: ProtectionIndex;
}

export interface BuiltinToolSpec<Schema extends z.ZodType> {
  name: string;
  description: string;
  /** The arguments' schema, built on first use (`onFirstUse`): listing or sending a tool needs none. */
  parameters: () => Schema;
  /** The path arguments of a call (guarded before `run`). */
  paths(args: z.output<Schema>): PathArgument[];
  /**
   * More reasons to ask under `ApproveOutside` than a path outside (run_command's commands); a
   * string is the reason shown.
   */
  asksFor?(args: z.output<Schema>, context: AskContext): boolean | string | Promise<boolean | string>;
  /** A reason to refuse under `DenyOutside` besides a path outside (the message), or undefined. */
  refusesFor?(
    args: z.output<Schema>,
    context: AskContext & { ops: ToolOperations },
  ): Promise<string | undefined>;
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

  // The built-in tools' JSON Schemas are generated at build time (`builtin-tool-schemas.ts`):
  // sending the tools to a model converts no zod schema.
  private schema: ITool['parameters'] | undefined;

  get parameters(): ITool['parameters'] {
    this.schema ??= builtinToolSchema(this.name) ?? this.convertParameters();
    return this.schema;
  }

  /** The JSON Schema converted from the zod schema: what `builtin-tool-schemas.ts` holds. */
  convertParameters(): ITool['parameters'] {
    return zodToJsonSchema(this.spec.parameters());
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
    const parsed = this.spec.parameters().safeParse(args);
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
   * What the policy says about a call before it runs: a refusal (a message), or whether it must
   * be approved first. Under `ApproveOutside` calls that reach outside ask; under every policy
   * protected paths are refused or ask (`protectionDecision`).
   */
  private async judge(args: z.output<Schema>): Promise<Judgement> {
    const scope = this.effectiveScope();
    const requested = this.spec.paths(args);
    // Both at once: the protected paths' real locations do not depend on the call.
    const [paths, index] = await Promise.all([this.resolve(args), protectionIndex(scope, this.ops.fs)]);
    const outside = paths.findIndex((p) => p.scope === 'outside_workspace');
    const shown = (i: number) => requested[i]?.path ?? paths[i]?.real ?? '';
    const judged = (rest: Omit<Judgement, 'paths' | 'protection'>): Judgement => ({
      paths,
      protection: index,
      ...rest,
    });
    if (this.scope && outside >= 0 && scope.policy === 'DenyOutside')
      return judged({ refusal: `Access denied: '${shown(outside)}' is outside workspace '${scope.name}'` });
    let asks = this.scope !== undefined && outside >= 0 && scope.policy === 'ApproveOutside';
    let why = asks ? `'${shown(outside)}' is outside workspace '${scope.name}'` : '';
    for (const [i, path] of paths.entries()) {
      const access = requested[i]?.access ?? 'read';
      let protection = protectionOf(path.real, access, index);
      if (!protection && access === 'write' && requested[i]?.tree && path.kind === 'directory')
        protection = await protectionInside(path.real);
      if (!protection) continue;
      const decision = protectionDecision(protection, access, scope.policy);
      if (decision === 'refused')
        return judged({ refusal: `Protected path: '${shown(i)}' (${protection.reason})` });
      if (decision === 'ask' && !asks) {
        asks = true;
        why = `'${shown(i)}' is a protected path (${protection.reason})`;
      }
    }
    if (this.scope?.policy === 'DenyOutside' && this.spec.refusesFor) {
      const context = { scope: this.scope, paths, fs: this.ops.fs, protection: index, ops: this.ops };
      const refusal = await this.spec.refusesFor(args, context);
      if (refusal !== undefined) return judged({ refusal });
    }
    if (!asks && this.scope?.policy === 'ApproveOutside' && this.spec.asksFor) {
      const answer = await this.spec.asksFor(args, {
        scope: this.scope,
        paths,
        fs: this.ops.fs,
        protection: index,
      });
      asks = answer !== false;
      if (asks)
        why =
          typeof answer === 'string'
            ? answer
            : 'not covered by allowCommands, or an argument reaches outside the workspace';
    }
    return judged({ asks, why });
  }

  /**
   * True for calls a human must approve first: under `ApproveOutside`, calls that reach outside
   * the workspace (without arguments: true, so `explain` shows the tool as gated); under any
   * policy, writes to protected paths that the policy lets a human decide.
   */
  async requiresApproval(args?: z.output<Schema>): Promise<boolean> {
    if (args === undefined) return this.scope?.policy === 'ApproveOutside';
    const parsed = this.spec.parameters().safeParse(args);
    if (!parsed.success) return false;
    // Cheap exits: `deny` never asks (it refuses), `allow` asks only for protected writes.
    const policy = this.scope?.policy ?? 'AllowAll';
    if (policy === 'DenyOutside') return false;
    if (policy === 'AllowAll' && !this.spec.paths(parsed.data).some((p) => p.access === 'write'))
      return false;
    try {
      const judged = await this.judge(parsed.data);
      return judged.refusal === undefined && judged.asks === true;
    } catch {
      return false; // a rejected path fails in execute, whatever a human would say
    }
  }

  private targetOf(args: z.output<Schema>, paths: ResolvedPath[]): string {
    return this.spec.target ? this.spec.target(args, paths) : paths.map((p) => p.real).join(' -> ');
  }

  async resolveTarget(args: z.output<Schema>): Promise<string | undefined> {
    const parsed = this.spec.parameters().safeParse(args);
    if (!parsed.success) return undefined;
    const paths = await this.resolve(parsed.data).catch(() => undefined);
    if (!paths) return undefined;
    return this.targetOf(parsed.data, paths);
  }

  /**
   * Runs a call. The policy is judged again here, on the very paths the call then acts on: a call
   * nobody approved that now needs approval (a folder swapped for a link since the gate was
   * asked) is refused, and so is an approved call whose target is no longer the one approved.
   */
  async execute(args: z.output<Schema>, context: ToolExecutionContext): Promise<ToolResult> {
    const parsed = this.spec.parameters().safeParse(args);
    if (!parsed.success)
      return toolFailure(`Invalid arguments for ${this.name}: ${describeZodIssues(parsed.error)}`);
    const requested = this.spec.paths(parsed.data);
    let judged: Judgement;
    try {
      judged = await this.judge(parsed.data);
    } catch (error) {
      if (PathRejectedError.isInstance(error)) return toolFailure(error.message);
      return toolFailure(describeFsError(error, requested[0]?.path ?? ''));
    }
    const { paths } = judged;
    if (judged.refusal !== undefined) return toolFailure(judged.refusal);
    if (judged.asks && !context.approved)
      return toolFailure(
        `Refused: ${this.name} now needs approval (${judged.why}) and this call was not approved; call it again`,
      );
    if (context.approvedTarget !== undefined) {
      const now = this.targetOf(parsed.data, paths);
      if (now !== context.approvedTarget)
        return toolFailure(
          `Refused: the approval was for '${context.approvedTarget}', but the call now resolves to '${now}'`,
        );
    }
    const outside = paths.some((p) => p.scope === 'outside_workspace');
    const label: ScopeLabel = !this.scope ? 'none' : outside ? 'outside_workspace' : 'workspace';
    try {
      const data = await this.spec.run({
        args: parsed.data,
        paths,
        scope: this.scope,
        ops: this.ops,
        label,
        context,
        protection: judged.protection,
      });
      const result = toolSuccess({ ...data, scope: label });
      const parts = (data as { [RESULT_PARTS]?: readonly ContentPart[] })[RESULT_PARTS];
      return parts ? { ...result, parts } : result;
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (ToolFailure.isInstance(error) || PathRejectedError.isInstance(error))
        return toolFailure(error.message);
      return toolFailure(describeFsError(error, requested[0]?.path ?? ''));
    }
  }
}

interface Judgement {
  paths: ResolvedPath[];
  protection: ProtectionIndex;
  refusal?: string;
  asks?: boolean;
  why?: string;
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
