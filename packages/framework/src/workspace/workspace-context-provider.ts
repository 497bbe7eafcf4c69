import { resolve } from 'node:path';
import {
  ConfigError,
  type ContextResult,
  type IContextProvider,
  type InvokingContext,
  type ISession,
  type ITool,
  isScopeTool,
  type JSONObject,
  type JSONValue,
  type ProtectedPath,
  type ToolApprovalContext,
  type WorkspaceScope,
} from '@raf/core';
import { ApprovalRequiredTool } from '../approval/approval-required-tool.js';
import { BuiltinTool } from '../builtin-tools/builtin-tool.js';
import { defaultToolOperations } from './operations/local-tool-operations.js';
import type { ToolOperations } from './operations/tool-operations.js';
import { type ProtectedPathRule, protectedPathRules } from './protected-paths.js';
import { workspaceInstructions } from './workspace-instructions.js';

export const WORKSPACE_PROVIDER_NAME = 'WorkspaceContextProvider';

export interface WorkspaceContextProviderOptions {
  /** Backend for the built-in tools added here (default: this machine). */
  operations?: ToolOperations;
}

/**
 * What the provider keeps in the session, one entry per workspace
 * (`provider_state::WorkspaceContextProvider:<workspace name>`).
 */
export interface WorkspaceState extends JSONObject {
  scope_name: string;
  scope_root: string;
  policy: string;
}

/**
 * A workspace: the folder(s) its tools act on and its policy for anything outside. `addTool()`
 * binds scope tools to it (`createScoped`) and, under `ApproveOutside`, wraps them so only calls
 * that reach outside ask (`requiresApproval()` without arguments is true, for `explain`).
 */
export class WorkspaceContextProvider implements IContextProvider {
  readonly name = WORKSPACE_PROVIDER_NAME;
  readonly kind = 'workspace';
  readonly injectsTools = true;
  readonly scope: WorkspaceScope;
  private readonly routed: ITool[] = [];
  private readonly operations: ToolOperations | undefined;

  constructor(scope: WorkspaceScope, options: WorkspaceContextProviderOptions = {}) {
    // An empty root would silently become the current folder.
    if (typeof scope.root !== 'string' || scope.root.trim() === '')
      throw new ConfigError(`workspace '${scope.name}': root must be a folder path, not an empty string`);
    if (scope.roots?.some((r) => typeof r !== 'string' || r.trim() === ''))
      throw new ConfigError(`workspace '${scope.name}': roots must be folder paths, not empty strings`);
    const root = resolve(scope.root);
    this.scope = {
      ...scope,
      root,
      ...(scope.roots && { roots: scope.roots.map((r) => resolve(root, r)) }),
      ...(scope.protectedPaths && {
        protectedPaths: scope.protectedPaths.map((p) => ({ ...p, path: resolve(root, p.path) })),
      }),
    };
    this.operations = options.operations;
  }

  /**
   * Protects more paths, after construction: what the agent's other entries execute or load
   * (declared through `PluginBuildContext.protect`), known only once they are built. Tools bound
   * before see them too (they share this scope's list). Paths already listed are not repeated.
   */
  protect(paths: readonly ProtectedPath[]): this {
    const list = (this.scope.protectedPaths ?? []) as ProtectedPath[];
    for (const p of paths) {
      const path = resolve(this.scope.root, p.path);
      const same = list.find((q) => q.path === path);
      // Listed twice, the stricter kind wins (a secret stays unreadable).
      if (same) {
        if (same.readable && !p.readable) same.readable = false;
        continue;
      }
      list.push({ ...p, path });
    }
    (this.scope as { protectedPaths?: readonly ProtectedPath[] }).protectedPaths = list;
    return this;
  }

  /** The protected paths of this workspace and what its policy does with them (for `explain`). */
  get protectedPaths(): ProtectedPathRule[] {
    return protectedPathRules(this.scope);
  }

  /** The tools as the model gets them: scoped, and gated under `ApproveOutside`. */
  get tools(): readonly ITool[] {
    return this.routed;
  }

  addTool(tool: ITool): this {
    if (this.routed.some((t) => t.name === tool.name)) {
      throw new ConfigError(`workspace '${this.scope.name}' already has a tool named '${tool.name}'`);
    }
    let scoped: ITool = isScopeTool(tool) ? tool.createScoped(this.scope) : tool;
    if (this.operations && scoped instanceof BuiltinTool) scoped = scoped.withOperations(this.operations);
    if (
      this.scope.policy === 'ApproveOutside' &&
      isScopeTool(tool) &&
      !(scoped instanceof ApprovalRequiredTool)
    ) {
      const inner = scoped;
      // A scope tool that cannot say which calls reach outside asks for every call (fail closed).
      const when = (args: unknown, context?: ToolApprovalContext) =>
        inner.requiresApproval ? inner.requiresApproval(args, context) : true;
      scoped = new ApprovalRequiredTool(inner, { when });
    }
    this.routed.push(scoped);
    return this;
  }

  addTools(tools: Iterable<ITool>): this {
    for (const tool of tools) this.addTool(tool);
    return this;
  }

  private async confined(): Promise<boolean> {
    return (this.operations ?? defaultToolOperations()).process.canConfine();
  }

  async instructions(): Promise<string> {
    const hasCommands = this.routed.some((t) => t.name === 'run_command');
    const confined = hasCommands && this.scope.policy === 'DenyOutside' ? await this.confined() : false;
    return workspaceInstructions(this.scope, { hasCommands, confined });
  }

  /** This workspace's key in the session's provider state: two workspaces never share one. */
  get stateName(): string {
    return `${WORKSPACE_PROVIDER_NAME}:${this.scope.name}`;
  }

  /** The state this workspace saved, also under the one key every workspace shared before. */
  private savedState(session: ISession): JSONValue | undefined {
    const state = session.getProviderState(this.stateName);
    if (state !== undefined) return state;
    const legacy = session.getProviderState<JSONObject>(this.name);
    return legacy?.scope_name === this.scope.name ? legacy : undefined;
  }

  async onInvoking({ session }: InvokingContext): Promise<ContextResult> {
    const result: ContextResult = { instructions: await this.instructions(), tools: [...this.routed] };
    if (this.savedState(session) === undefined) {
      const state: WorkspaceState = {
        scope_name: this.scope.name,
        scope_root: this.scope.root,
        policy: this.scope.policy,
      };
      session.setProviderState(this.stateName, state);
      if (
        this.scope.policy === 'DenyOutside' &&
        this.routed.some((t) => t.name === 'run_command') &&
        !(await this.confined())
      ) {
        result.warnings = [
          `workspace '${this.scope.name}': run_command is not confined (bubblewrap is not installed); only its working_dir is checked`,
        ];
      }
    }
    return result;
  }
}
