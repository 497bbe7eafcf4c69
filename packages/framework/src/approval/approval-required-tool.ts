import type { ITool, ToolApprovalContext, ToolExecutionContext, ToolResult } from '@raf/core';

export interface ApprovalRequiredToolOptions<Args> {
  /** Which calls need approval (default: every call). Called with the parsed arguments and the call's run context. */
  when?: (args: Args, context?: ToolApprovalContext) => boolean | Promise<boolean>;
  /** Replaces the description shown in approval prompts. */
  reason?: string;
}

/**
 * Wraps a tool so its calls wait for a human decision. `requiresApproval()` without arguments is
 * always true, so `explain` shows the tool as gated even when only some calls ask.
 */
export class ApprovalRequiredTool<Args = unknown> implements ITool<Args> {
  readonly name: string;
  readonly description: string;
  /** Present only when the inner tool validates its own arguments (else the loop checks the schema). */
  readonly validateArguments?: ITool['validateArguments'];

  constructor(
    readonly inner: ITool<Args>,
    private readonly options: ApprovalRequiredToolOptions<Args> = {},
  ) {
    this.name = inner.name;
    this.description = inner.description;
    if (inner.validateArguments) this.validateArguments = inner.validateArguments.bind(inner);
  }

  get parameters(): ITool['parameters'] {
    return this.inner.parameters;
  }

  get kind(): string | undefined {
    return this.inner.kind;
  }

  get manifest() {
    return this.inner.manifest;
  }

  get approvalReason(): string | undefined {
    return this.options.reason;
  }

  async requiresApproval(args?: Args, context?: ToolApprovalContext): Promise<boolean> {
    if (args === undefined || !this.options.when) return true;
    return this.options.when(args, context);
  }

  resolveTarget(args: Args): string | undefined | Promise<string | undefined> {
    return this.inner.resolveTarget?.(args);
  }

  execute(args: Args, context: ToolExecutionContext): Promise<ToolResult> {
    return this.inner.execute(args, context);
  }
}
