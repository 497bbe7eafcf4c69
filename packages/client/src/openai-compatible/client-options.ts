import type { HttpClientOptions } from '../http/http-client-options.js';

export interface OpenAICompatibleClientOptions extends HttpClientOptions {
  /** Base URL up to, not including, `/chat/completions` (e.g. `http://127.0.0.1:11434/v1`). */
  baseURL: string;
  /** Send `reasoning_content` back on assistant tool-call messages (on for DeepSeek). */
  echoReasoning?: boolean;
}
