import { MemoryError } from '@raf/core';
import { ConfinedFolder, isMissing } from '../workspace/confined-folder.js';

/** The largest bundle file read (a page, an index, a record): larger ones are refused, not loaded. */
export const MEMORY_FILE_MAX_BYTES = 4 * 1024 * 1024;

const folders = new Map<string, ConfinedFolder>();
let never: AbortSignal | undefined;

/**
 * The bundle as a confined folder: every read and write of a bundle file goes through it, so a
 * link planted in the bundle (by a model's `run_command`, say) is refused, never followed, a FIFO
 * is refused without blocking, and nothing is written or read outside the bundle.
 */
export function bundleFolder(root: string): ConfinedFolder {
  let folder = folders.get(root);
  if (!folder) {
    folder = new ConfinedFolder(root);
    folders.set(root, folder);
  }
  return folder;
}

function signalOf(signal: AbortSignal | undefined): AbortSignal {
  never ??= new AbortController().signal;
  return signal ?? never;
}

function memoryError(rel: string, error: unknown): MemoryError {
  return MemoryError.isInstance(error)
    ? error
    : new MemoryError(`memory file ${rel}: ${(error as Error).message}`, { cause: error });
}

/** A bundle file's text, or undefined when it does not exist; a link or a FIFO is a `MemoryError`. */
export async function readBundleText(
  root: string,
  rel: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  try {
    const bytes = await bundleFolder(root).readOptional(rel, {
      maxBytes: MEMORY_FILE_MAX_BYTES,
      signal: signalOf(signal),
    });
    return bytes?.toString('utf8');
  } catch (error) {
    if (signal?.aborted) throw error;
    throw memoryError(rel, error);
  }
}

/** Replaces a bundle file atomically, creating its folders, never through a link. */
export async function writeBundleText(
  root: string,
  rel: string,
  text: string,
  signal?: AbortSignal,
): Promise<void> {
  try {
    await bundleFolder(root).writeFile(rel, text, { signal: signalOf(signal) });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw memoryError(rel, error);
  }
}

/** Removes a bundle file (a link itself, never its target). */
export async function removeBundleFile(root: string, rel: string): Promise<void> {
  try {
    await bundleFolder(root).remove(rel);
  } catch (error) {
    if (!isMissing(error)) throw memoryError(rel, error);
  }
}
