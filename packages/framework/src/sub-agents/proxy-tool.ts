import type { ITool, JSONValue, ToolExecutionContext, ToolManifest, ToolResult } from '@raf/core';
import { toolFailure } from '@raf/core';
import { DEFAULT_DENIAL_REASON } from '../approval/approval-batch.js';
import { ToolSuspension } from '../pipeline/tool-suspension.js';
import type { ToolAnswer } from './worker-protocol.js';

/** The worker's line to its parent for proxied calls: one message out, one answer back. */
export interface ProxyChannel {
  call(name: string, callId: string, args: JSONValue, approved: boolean): Promise<ToolAnswer>;
}

/**
 * A worker's stand-in for a tool that runs in the main process (`main-process-proxy`): the model
 * sees the real tool's name, description and schema. A call is one round trip: the parent runs
 * its own instance through its argument checks, approval gate and path guard, and answers with
 * the result, or with the approval the call needs, which pauses the worker's run here
 * (`ToolSuspension`); the resumed call goes back with the human's answer. The worker's loop asks
 * this tool nothing before it runs: the gate is the parent's, decided once.
 */
export class ProxiedTool implements ITool {
  readonly name: string;
  readonly description: string;
  readonly parameters: ITool['parameters'];
  readonly kind: string | undefined;
  readonly manifest: ToolManifest | undefined;
  readonly validateArguments?: ITool['validateArguments'];

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

  async execute(args: unknown, context: ToolExecutionContext): Promise<ToolResult> {
    const json = args as JSONValue;
    let approved = false;
    if (context.resume) {
      // The run paused on this call: the human's answer decides, without asking the parent again.
      const decision = context.resume.approvals.find((a) => a.callId === context.callId);
      if (!decision?.approved) return toolFailure(`Rejected: ${decision?.reason || DEFAULT_DENIAL_REASON}`);
      approved = true;
    }
    const answer = await this.channel.call(this.name, context.callId, json, approved);
    if ('result' in answer) return answer.result;
    if (approved) return toolFailure('Refused: the parent asked again for an approval it was given');
    const { description, target } = answer.approval;
    throw new ToolSuspension(
      [
        {
          type: 'tool-approval-request',
          callId: context.callId,
          name: this.name,
          arguments: json,
          description,
          ...(target !== undefined && { resolvedTarget: target }),
        },
      ],
      null,
    );
  }
}
