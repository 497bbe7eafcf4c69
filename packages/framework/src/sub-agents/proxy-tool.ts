import type {
  ITool,
  JSONValue,
  ToolApprovalContext,
  ToolExecutionContext,
  ToolManifest,
  ToolResult,
} from '@raf/core';
import type { ProxyCheck } from './worker-protocol.js';

/** The worker's line to its parent for proxied calls. */
export interface ProxyChannel {
  check(name: string, callId: string, args: JSONValue): Promise<ProxyCheck>;
  execute(name: string, callId: string, args: JSONValue, approved: boolean): Promise<ToolResult>;
}

/**
 * A worker's stand-in for a tool that runs in the main process (`main-process-proxy`): the model
 * sees the real tool's name, description and schema; every gate question and every execution goes
 * to the parent, which runs its own instance through its path guard and approval gate.
 */
export class ProxiedTool implements ITool {
  readonly name: string;
  readonly description: string;
  readonly parameters: ITool['parameters'];
  readonly kind: string | undefined;
  readonly manifest: ToolManifest | undefined;
  readonly validateArguments?: ITool['validateArguments'];
  // The gate's answer for the arguments just asked about: `resolveTarget` follows it directly.
  private lastCheck: { args: string; check: ProxyCheck } | undefined;

  constructor(
    local: ITool,
    private readonly channel: ProxyChannel,
  ) {
    this.name = local.name;
    this.description = local.description;
    this.parameters = local.parameters;
    this.kind = local.kind;
    this.manifest = local.manifest;
    const validate = local.validateArguments;
    // Checked here, but the parent gets the arguments as the model wrote them.
    if (validate) {
      this.validateArguments = (args) => {
        const checked = validate.call(local, args);
        return checked.ok ? { ok: true } : checked;
      };
    }
  }

  async requiresApproval(args?: unknown, context?: ToolApprovalContext): Promise<boolean> {
    // Asked without arguments ("can it ever ask?"): the parent decides per call, so it may.
    if (args === undefined) return true;
    const key = JSON.stringify(args);
    const check = await this.channel.check(this.name, context?.callId ?? '', args as JSONValue);
    this.lastCheck = { args: key, check };
    return check.gated;
  }

  async resolveTarget(args: unknown): Promise<string | undefined> {
    const key = JSON.stringify(args);
    const last = this.lastCheck;
    this.lastCheck = undefined;
    if (last?.args === key) return last.check.target;
    return (await this.channel.check(this.name, '', args as JSONValue)).target;
  }

  execute(args: unknown, context: ToolExecutionContext): Promise<ToolResult> {
    return this.channel.execute(this.name, context.callId, args as JSONValue, context.approved === true);
  }
}
