import { fileURLToPath } from 'node:url';

// How a parent names the worker factory (`worker-factory.ts`) without importing it: a parent
// needs only the path of the module its workers load, not the module (nor what it imports).

/** The module a worker imports to make a YAML sub-agent: `worker-factory`, built or not. */
export function workerFactoryModule(): string {
  const here = import.meta.url;
  // Built, this code sits in a chunk beside the `worker-factory.js` entry (the CLI ships one too).
  return fileURLToPath(new URL(here.endsWith('.ts') ? './worker-factory.ts' : './worker-factory.js', here));
}

export const WORKER_FACTORY_EXPORT = 'createSubAgentForWorker';
