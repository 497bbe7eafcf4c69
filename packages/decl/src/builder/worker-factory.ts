import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { preloadHttp } from '@raf/client';
import type { JSONValue, ProtectedPath } from '@raf/core';
import type { SubAgentFactoryResult } from '@raf/framework';
import type { Environment } from '../env/resolve-env.js';
import { loadExtension } from '../registry/extension-loader.js';
import { DeclAgentBuilder, type StrictOptions } from './decl-agent-builder.js';
import type { ModelOverride } from './plan-model.js';

/** What a worker needs to rebuild sub-agent `subAgent` exactly as its parent did (plain JSON). */
export interface WorkerFactoryOptions {
  source:
    | { file: string }
    | { text: string; file: string; format: 'yaml' | 'json' | 'toml' }
    | { object: JSONValue };
  subAgent: string;
  /** Extension packages the parent registered, by name. */
  plugins: string[];
  model?: ModelOverride;
  variables?: Record<string, JSONValue>;
  env?: Record<string, string>;
  strict?: Required<StrictOptions>;
  protectedPaths?: ProtectedPath[];
  governance?: { file: string } | { data: JSONValue };
}

/** The module a worker imports to rebuild a YAML sub-agent: this file, built or not. */
export function workerFactoryModule(): string {
  const here = import.meta.url;
  // Built, this code sits in a chunk beside the `worker-factory.js` entry (the CLI ships one too).
  return fileURLToPath(here.endsWith('.ts') ? here : new URL('./worker-factory.js', here));
}

export const WORKER_FACTORY_EXPORT = 'createSubAgentForWorker';

/** Run by a spare worker while it waits: what the first model request would load, loaded now. */
export async function warmUp(): Promise<void> {
  await preloadHttp();
}

/**
 * The factory a sub-agent's worker process calls (`WorkerFactoryRef`): loads the agent file again,
 * registers the same extension packages by name, and builds the named sub-agent with the contexts
 * it inherits, its governance and its own model.
 */
export async function createSubAgentForWorker(
  options: JSONValue,
  context: { signal: AbortSignal },
): Promise<SubAgentFactoryResult> {
  const o = options as unknown as WorkerFactoryOptions;
  const builder = new DeclAgentBuilder();
  const source = o.source;
  if ('object' in source) builder.fromObject(source.object);
  else if ('text' in source) builder.setText(source.text, source.file, source.format);
  else builder.fromFile(source.file);
  const folder = 'file' in source ? dirname(resolve(source.file)) : process.cwd();
  for (const name of o.plugins) {
    const plugin = await loadExtension(name, folder);
    if (plugin) builder.use(plugin);
  }
  if (o.model) builder.withModel(o.model);
  if (o.variables) builder.withVariables(o.variables);
  if (o.env) builder.withEnvironment(o.env as Environment);
  if (o.strict) builder.strictMode(o.strict);
  for (const p of o.protectedPaths ?? []) builder.protectPaths([p.path], p.reason);
  if (o.governance)
    builder.withGovernance('file' in o.governance ? o.governance.file : (o.governance.data as never));
  return { agent: await builder.buildSubAgent(o.subAgent, { signal: context.signal }) };
}
