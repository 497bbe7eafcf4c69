/** The parts of the Responses API's stream events and objects the client reads (the rest is ignored). */

/** An output item: a message, a function call, or a reasoning item (sent back on later rounds). */
export interface ResponsesWireItem {
  type?: string;
  id?: string;
  /** `function_call` */
  call_id?: string;
  name?: string;
  arguments?: string;
  /** `message` */
  content?: { type?: string; text?: string; refusal?: string }[];
  /** `reasoning` */
  summary?: { type?: string; text?: string }[];
  encrypted_content?: string | null;
  status?: string;
}

export interface ResponsesWireUsage {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

export interface ResponsesWireResponse {
  id?: string;
  object?: string;
  model?: string;
  status?: string;
  output?: ResponsesWireItem[];
  usage?: ResponsesWireUsage | null;
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string; message?: string } | null;
}

/** One streamed event (`data:` of each SSE event; its `type` repeats the `event:` name). */
export interface ResponsesWireEvent {
  type?: string;
  response?: ResponsesWireResponse;
  output_index?: number;
  item_id?: string;
  item?: ResponsesWireItem;
  delta?: string;
  arguments?: string;
  /** `error` events */
  code?: string | null;
  message?: string;
}

/** A reasoning item as the next request sends it back (`store: false`: with its encrypted content). */
export interface ReasoningItem {
  type: 'reasoning';
  id: string;
  summary: { type: 'summary_text'; text: string }[];
  encrypted_content?: string;
}
