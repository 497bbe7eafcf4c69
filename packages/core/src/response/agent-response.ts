import { RafError } from '../errors/raf-error.js';
import type { JSONValue } from '../json/json.js';
import type { ToolCall } from '../messages/chat-message.js';
import type { ToolResult } from '../tool/tool-result.js';
import type {
  AgentResponseUpdate,
  FinishReason,
  ToolApprovalRequestUpdate,
} from '../updates/agent-response-update.js';
import { addUsage, type Usage } from '../updates/usage.js';

export interface AgentResponse {
  text: string;
  reasoningText?: string;
  toolCalls: ToolCall[];
  toolResults: { callId: string; name: string; result: ToolResult }[];
  approvalRequests: ToolApprovalRequestUpdate[];
  warnings: string[];
  finishReason?: FinishReason;
  /** With an output schema: the validated structured answer (`finish.output`). */
  output?: JSONValue;
  /** Summed over every model call of the run (a `finish` carrying usage gives the total). */
  usage?: Usage;
  id?: string;
  model?: string;
}

const streamFailedKey = 'raf.error.StreamFailedError';
const streamFailedSymbol = Symbol.for(streamFailedKey);

/** The stream carried an `error` update; `partial` keeps everything that arrived. */
export class StreamFailedError extends RafError {
  private readonly [streamFailedSymbol] = true;
  /** The `code` of the error update (e.g. `RAF_STREAM`, `RAF_TIMEOUT`). */
  readonly streamCode: string;
  readonly partial: AgentResponse;
  constructor(streamCode: string, message: string, partial: AgentResponse) {
    super('RAF_STREAM', message);
    this.name = 'StreamFailedError';
    this.streamCode = streamCode;
    this.partial = partial;
  }
  static override isInstance(error: unknown): error is StreamFailedError {
    return RafError.hasMarker(error, streamFailedKey);
  }
}

export interface CollectOptions {
  /** Called with each update as it arrives (e.g. to print text while collecting). */
  onUpdate?: (update: AgentResponseUpdate) => void;
  /** Throw `StreamFailedError` when an `error` update arrives (default true). */
  throwOnError?: boolean;
}

/** Builds an `AgentResponse` one update at a time (for code that forwards a stream and also needs its result). */
export class AgentResponseAccumulator {
  readonly response: AgentResponse = {
    text: '',
    toolCalls: [],
    toolResults: [],
    approvalRequests: [],
    warnings: [],
  };
  private reasoning = '';
  /** The first `error` update, if any. */
  failure: { code: string; message: string } | undefined;

  add(update: AgentResponseUpdate): void {
    const response = this.response;
    switch (update.type) {
      case 'text-delta':
        response.text += update.delta;
        break;
      case 'reasoning-delta':
        this.reasoning += update.delta;
        response.reasoningText = this.reasoning;
        break;
      case 'tool-call-end':
        response.toolCalls.push({ id: update.callId, name: update.name, arguments: update.arguments });
        break;
      case 'tool-called':
        response.toolResults.push({ callId: update.callId, name: update.name, result: update.result });
        break;
      case 'tool-approval-request':
        response.approvalRequests.push(update);
        break;
      case 'usage':
        response.usage = addUsage(response.usage, update.usage);
        break;
      case 'response-metadata':
        if (update.id !== undefined) response.id = update.id;
        if (update.model !== undefined) response.model = update.model;
        break;
      case 'warning':
        response.warnings.push(update.message);
        break;
      case 'error':
        this.failure ??= { code: update.code, message: update.message };
        break;
      case 'finish':
        response.finishReason = update.reason;
        if (update.usage) response.usage = update.usage;
        if (update.output !== undefined) response.output = update.output;
        break;
      default:
        break;
    }
  }
}

/** Drains a stream of updates into one `AgentResponse`. */
export async function collectAgentResponse(
  stream: AsyncIterable<AgentResponseUpdate>,
  options: CollectOptions = {},
): Promise<AgentResponse> {
  const accumulator = new AgentResponseAccumulator();
  for await (const update of stream) {
    options.onUpdate?.(update);
    accumulator.add(update);
  }
  const { failure, response } = accumulator;
  if (failure && options.throwOnError !== false) {
    throw new StreamFailedError(failure.code, failure.message, response);
  }
  return response;
}
