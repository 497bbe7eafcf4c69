import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';

const PAGE = 64 * 1024;
/** QuickJS's own bookkeeping and the emscripten stack, above what scripts may allocate. */
const HEADROOM = 32 * 1024 * 1024;

let compiled: Promise<WebAssembly.Module> | undefined;

/** Compiles the QuickJS WebAssembly once per process; every instance reuses the compiled module. */
function compiledModule(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const path = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
    return WebAssembly.compile(await readFile(path));
  })();
  compiled.catch(() => {
    compiled = undefined;
  });
  return compiled;
}

/** One QuickJS WebAssembly instance with its own linear memory. */
export interface QuickJsInstance {
  module: QuickJSWASMModule;
  memory: WebAssembly.Memory;
  /** The most the instance's memory may grow to, in bytes. */
  maxBytes: number;
}

/**
 * A fresh instance whose linear memory cannot grow past twice the script memory limit plus
 * headroom: QuickJS's allocator counts what scripts allocate, but fragmentation and reallocs need
 * more, and this hard cap is what bounds the host's RSS. Dropping the instance frees it all.
 * The QuickJS modules load on first use, so importing the plugin costs nothing.
 */
export async function newQuickJsInstance(memoryLimit: number): Promise<QuickJsInstance> {
  const [{ newQuickJSWASMModuleFromVariant, newVariant }, variant, wasmModule] = await Promise.all([
    import('quickjs-emscripten-core'),
    import('@jitl/quickjs-wasmfile-release-sync'),
    compiledModule(),
  ]);
  const pages = Math.ceil((2 * memoryLimit + HEADROOM) / PAGE);
  const memory = new WebAssembly.Memory({ initial: 256, maximum: Math.max(pages, 512) });
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(variant.default, { wasmModule, wasmMemory: memory }),
  );
  return { module, memory, maxBytes: Math.max(pages, 512) * PAGE };
}
