/** The parts of the Anthropic Messages wire format this client reads (all optional: be lenient). */
export interface AnthropicWireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

export interface AnthropicWireBlock {
  type?: string;
  /** `text` blocks. */
  text?: string;
  /** `tool_use` blocks. */
  id?: string;
  name?: string;
  input?: unknown;
  /** `thinking` blocks. */
  thinking?: string;
  signature?: string;
  /** `redacted_thinking` blocks. */
  data?: string;
}

export interface AnthropicWireDelta {
  type?: string;
  text?: string;
  partial_json?: string;
  thinking?: string;
  signature?: string;
  /** `message_delta`. */
  stop_reason?: string | null;
  stop_sequence?: string | null;
}

/** A whole answer (`stream: false`), also the `message` of `message_start`. */
export interface AnthropicWireMessage {
  type?: string;
  id?: string;
  model?: string;
  content?: AnthropicWireBlock[];
  stop_reason?: string | null;
  usage?: AnthropicWireUsage | null;
}

/** One SSE payload: the event name is repeated in `type`. */
export interface AnthropicWireEvent extends AnthropicWireMessage {
  message?: AnthropicWireMessage;
  index?: number;
  content_block?: AnthropicWireBlock;
  delta?: AnthropicWireDelta;
  error?: { type?: string; message?: string };
}

/** A thinking block as the API wants it back on the next turn (signature included). */
export type ThinkingBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };
