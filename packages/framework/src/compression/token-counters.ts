import { base64ByteLength, type ChatMessage, ConfigError, type MessageContent } from '@raf/core';
import type { ITokenCounter } from './compression-types.js';

// What a media part costs the window, roughly: providers bill an image by its tiles (a large one
// near 1,100 tokens on OpenAI and Anthropic alike) and a document by its extracted text.
const IMAGE_TOKENS = 1100;
const FILE_BYTES_PER_TOKEN = 4;

/** Tokens of a message's content: its text by `count`, its images and files by the estimates above. */
export function contentTokens(content: MessageContent, count: (text: string) => number): number {
  if (typeof content === 'string') return count(content);
  let total = 0;
  for (const part of content) {
    if (part.type === 'text') total += count(part.text);
    else if (part.type === 'image') total += IMAGE_TOKENS;
    else total += Math.ceil(base64ByteLength(part.data) / FILE_BYTES_PER_TOKEN);
  }
  return total;
}

const encoder = new TextEncoder();

/**
 * About 4 UTF-8 bytes per token plus per-message and tool-call overhead, rounded up: errs on the
 * high side, so a budget it approves fits.
 */
export class EstimateTokenCounter implements ITokenCounter {
  constructor(private readonly bytesPerToken = 4) {}

  countTextTokens(text: string): number {
    return Math.ceil(encoder.encode(text).length / this.bytesPerToken);
  }

  countTokens(messages: readonly ChatMessage[]): number {
    let total = 3;
    for (const message of messages) {
      total += 4 + contentTokens(message.content, (text) => this.countTextTokens(text));
      for (const call of message.toolCalls ?? [])
        total += 4 + this.countTextTokens(call.name) + this.countTextTokens(call.arguments);
    }
    return total;
  }
}

type CountFn = (text: string) => number;

function encodingFor(model: string): 'o200k_base' | 'cl100k_base' {
  return /^(gpt-3\.5|gpt-4(?!o|\.1|\.5)|text-embedding)/.test(model) ? 'cl100k_base' : 'o200k_base';
}

/** Exact counts for OpenAI models with the OpenAI chat format's overhead (3 per message, 3 to prime the reply). */
export class ExactTokenCounter implements ITokenCounter {
  private constructor(
    private readonly count: CountFn,
    readonly encoding: string,
  ) {}

  /** Loads `gpt-tokenizer` (an optional dependency: `npm install gpt-tokenizer`) for `model`'s encoding. */
  static async forModel(model: string): Promise<ExactTokenCounter> {
    const encoding = encodingFor(model);
    try {
      const module = (await import(`gpt-tokenizer/encoding/${encoding}`)) as { countTokens: CountFn };
      return new ExactTokenCounter(module.countTokens, encoding);
    } catch (error) {
      throw new ConfigError(
        `exact token counting needs the optional package gpt-tokenizer (npm install gpt-tokenizer)`,
        {
          cause: error,
        },
      );
    }
  }

  countTextTokens(text: string): number {
    return this.count(text);
  }

  countTokens(messages: readonly ChatMessage[]): number {
    let total = 3;
    for (const message of messages) {
      total += 3 + contentTokens(message.content, (text) => this.count(text));
      if (message.name) total += 1 + this.count(message.name);
      for (const call of message.toolCalls ?? [])
        total += 3 + this.count(call.name) + this.count(call.arguments);
    }
    return total;
  }
}
