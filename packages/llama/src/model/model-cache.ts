import { CancelledError, ChatClientError, getErrorMessage } from '@raf/core';
import type { Llama, LlamaGpuType, LlamaModel } from 'node-llama-cpp';

/** Which llama.cpp backend runs a model: the CPU, the best GPU found, or a named one. */
export type GpuChoice = boolean | 'cuda' | 'vulkan' | 'metal';

type NodeLlamaCpp = typeof import('node-llama-cpp');

/**
 * One llama.cpp binding per backend and one loaded model per file and backend, for the whole
 * process: every client of a model shares its weights, and the last `release` unloads them.
 * node-llama-cpp is imported on first use, so importing this package loads no native code.
 */
let module: Promise<NodeLlamaCpp> | undefined;
const backends = new Map<string, Promise<Llama>>();
const models = new Map<string, { model: Promise<LlamaModel>; users: number }>();
const recentErrors: string[] = [];

function nodeLlamaCpp(): Promise<NodeLlamaCpp> {
  module ??= import('node-llama-cpp');
  return module;
}

/**
 * The binding for a backend, from the prebuilt binaries shipped in `@node-llama-cpp/<platform>`:
 * never a build from source, never a download (a machine with no fitting binary gets an error).
 */
function backend(gpu: GpuChoice): Promise<Llama> {
  const key = String(gpu);
  let llama = backends.get(key);
  if (!llama) {
    llama = nodeLlamaCpp().then(({ getLlama, LlamaLogLevel }) =>
      getLlama({
        gpu: gpu === true ? 'auto' : gpu === false ? false : (gpu as LlamaGpuType),
        build: 'never',
        usePrebuiltBinaries: true,
        skipDownload: true,
        progressLogs: false,
        logLevel: LlamaLogLevel.error,
        // llama.cpp's own account of a failure goes into the error we throw, not to the console.
        logger: (_level, message) => {
          recentErrors.push(message.trim());
          if (recentErrors.length > 5) recentErrors.shift();
        },
      }),
    );
    backends.set(key, llama);
    // A failed binding is not cached: the next load tries again.
    llama.catch(() => backends.delete(key));
  }
  return llama;
}

/** A model held by one client; `release` lets it go (unloaded when nobody holds it). */
export interface ModelLease {
  readonly model: LlamaModel;
  readonly llama: Llama;
  release(): Promise<void>;
}

export interface AcquireOptions {
  modelPath: string;
  gpu: GpuChoice;
  signal?: AbortSignal;
}

function loadError(path: string, error: unknown): ChatClientError {
  const said = recentErrors.splice(0).filter(Boolean);
  const detail = said.length > 0 ? ` (llama.cpp: ${said.join('; ')})` : '';
  return new ChatClientError(`cannot load the model ${path}: ${getErrorMessage(error)}${detail}`, {
    provider: 'llama',
    cause: error,
  });
}

/** The loaded model of `modelPath` (loading it unless another client already did). */
export async function acquireModel({ modelPath, gpu, signal }: AcquireOptions): Promise<ModelLease> {
  if (signal?.aborted) throw new CancelledError('model load cancelled', { cause: signal.reason });
  const key = `${gpu}\0${modelPath}`;
  let entry = models.get(key);
  if (!entry) {
    const loading = (async () => {
      let llama: Llama;
      try {
        llama = await backend(gpu);
      } catch (error) {
        throw new ChatClientError(`no llama.cpp binary for this machine: ${getErrorMessage(error)}`, {
          provider: 'llama',
          cause: error,
        });
      }
      recentErrors.length = 0;
      try {
        // No load signal: one client giving up must not fail the load others wait for.
        return await llama.loadModel({ modelPath, ...(gpu === false && { gpuLayers: 0 }) });
      } catch (error) {
        // llama.cpp's log lines cross from its thread through the event loop: they may come after
        // the rejection, so give them a moment.
        await new Promise((done) => setTimeout(done, 20));
        throw loadError(modelPath, error);
      }
    })();
    entry = { model: loading, users: 0 };
    models.set(key, entry);
    loading.catch(() => {
      if (models.get(key)?.model === loading) models.delete(key);
    });
  }
  const held = entry;
  held.users++;
  let model: LlamaModel;
  let llama: Llama;
  try {
    model = await held.model;
    llama = await backend(gpu);
  } catch (error) {
    held.users--;
    throw error;
  }
  if (signal?.aborted) {
    await release(key, held);
    throw new CancelledError('model load cancelled', { cause: signal.reason });
  }
  let released = false;
  return {
    model,
    llama,
    release: async () => {
      if (released) return;
      released = true;
      await release(key, held);
    },
  };
}

async function release(key: string, entry: { model: Promise<LlamaModel>; users: number }): Promise<void> {
  entry.users--;
  if (entry.users > 0) return;
  if (models.get(key) === entry) models.delete(key);
  const model = await entry.model.catch(() => undefined);
  await model?.dispose();
}

/** How many models this process holds loaded (for tests and diagnostics). */
export function loadedModelCount(): number {
  return models.size;
}
