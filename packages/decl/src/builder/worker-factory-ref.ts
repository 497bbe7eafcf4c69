import { fileURLToPath } from 'node:url';
import type { JSONValue, ProtectedPath } from '@raf/core';
import type { StrictOptions } from './decl-agent-builder.js';
import type { ModelOverride } from './plan-model.js';

// How a parent names the worker factory (`worker-factory.ts`) without importing it: the factory
// builds agents with `DeclAgentBuilder`, whose assembly names the factory, so the reference lives
// apart and nothing imports in a circle.

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
  return fileURLToPath(new URL(here.endsWith('.ts') ? './worker-factory.ts' : './worker-factory.js', here));
}

export const WORKER_FACTORY_EXPORT = 'createSubAgentForWorker';
