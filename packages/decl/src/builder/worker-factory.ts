import { dirname, resolve } from 'node:path';
import { preloadHttp } from '@raf/client';
import type { JSONValue } from '@raf/core';
import type { SubAgentFactoryResult } from '@raf/framework';
import type { Environment } from '../env/resolve-env.js';
import { loadExtension } from '../registry/extension-loader.js';
import { DeclAgentBuilder } from './decl-agent-builder.js';
import type { WorkerFactoryOptions } from './worker-factory-ref.js';

export type { WorkerFactoryOptions } from './worker-factory-ref.js';
export { WORKER_FACTORY_EXPORT, workerFactoryModule } from './worker-factory-ref.js';

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
