import { resolve } from 'node:path';
import { ConfigError, type Declaration, type ModelOptions, type PluginBuildContext } from '@raf/core';
import { z } from 'zod';
import type { LlamaChatClientOptions } from '../client/llama-chat-client.js';

/**
 * `config` of a llama model declaration: `memoryModel`'s (decl fills it) or a whole agent's
 * `model.config`. Keys are accepted in camelCase and the upstream snake_case.
 */
export const llamaModelConfigSchema = z.strictObject({
  modelPath: z.string().min(1).optional(),
  /** The upstream alias of `modelPath`. */
  path: z.string().min(1).optional(),
  /** Upstream's separate tokenizer file; a GGUF carries its own tokenizer, so it is not used. */
  tokenizerPath: z.string().optional(),
  useGpu: z.union([z.boolean(), z.enum(['cuda', 'vulkan', 'metal'])]).optional(),
  contextSize: z.number().int().positive().optional(),
  threads: z.number().int().positive().optional(),
});

const camelCase = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function parseConfig(raw: unknown): z.output<typeof llamaModelConfigSchema> {
  const entries = raw && typeof raw === 'object' ? Object.entries(raw) : [];
  const result = llamaModelConfigSchema.safeParse(
    Object.fromEntries(entries.map(([key, value]) => [camelCase(key), value])),
  );
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues
      .map((issue) => `config${issue.path.map((p) => `.${String(p)}`).join('')}: ${issue.message}`)
      .join('; '),
  );
}

/** A declaration's `options` (decl's canonical names) as request defaults. */
function modelOptionsOf(options: Record<string, unknown>): ModelOptions {
  const out: ModelOptions = {};
  const number = (key: string) => (typeof options[key] === 'number' ? (options[key] as number) : undefined);
  const set = <K extends keyof ModelOptions>(key: K, value: ModelOptions[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  set('temperature', number('temperature'));
  set('topP', number('topP'));
  set('seed', number('seed'));
  set('maxTokens', number('maxOutputTokens') ?? number('maxTokens'));
  set('presencePenalty', number('presencePenalty'));
  set('frequencyPenalty', number('frequencyPenalty'));
  if (Array.isArray(options.stopSequences)) set('stop', options.stopSequences.map(String));
  return out;
}

/**
 * The client options of a model declaration. The file comes from `config.modelPath` (or `path`)
 * or `connection.endpoint`, relative to the agent file's folder.
 */
export function clientOptionsOf(decl: Declaration, context: PluginBuildContext): LlamaChatClientOptions {
  const provider = decl.kind;
  const config = parseConfig(decl.config);
  const connection = (decl.connection ?? {}) as { endpoint?: unknown };
  const endpoint = typeof connection.endpoint === 'string' ? connection.endpoint : undefined;
  const configured = config.modelPath ?? config.path;
  if (configured && endpoint && resolve(context.baseDir, configured) !== resolve(context.baseDir, endpoint))
    throw new ConfigError(
      `provider "${provider}" has two model files: config.modelPath ${configured} and connection.endpoint ${endpoint}; keep one`,
    );
  const file = configured ?? endpoint;
  if (!file)
    throw new ConfigError(
      `provider "${provider}" needs a .gguf model file: model.connection.endpoint or model.config.modelPath (relative to the agent file)`,
    );
  if (config.tokenizerPath)
    context.warn(`${provider}: tokenizerPath is not used; a GGUF file carries its own tokenizer`);
  const options: LlamaChatClientOptions = {
    modelPath: resolve(context.baseDir, file),
    provider,
    modelOptions: modelOptionsOf((decl.options ?? {}) as Record<string, unknown>),
  };
  if (typeof decl.name === 'string' && decl.name !== '') options.modelId = decl.name;
  if (config.useGpu !== undefined) options.useGpu = config.useGpu;
  if (config.contextSize !== undefined) options.contextSize = config.contextSize;
  if (config.threads !== undefined) options.threads = config.threads;
  if (context.signal) options.signal = context.signal;
  return options;
}
