import { chmodSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { rollup } from 'rollup';

interface Metafile {
  outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string }[] }>;
}

/**
 * Regroups the `raf` bundle that esbuild wrote to `from` (with its metafile) into `to`. Each group
 * names entry points (source paths); the entries' chunks and everything they import statically
 * become one chunk, the first group that reaches a chunk taking it. `bin.js` stays the entry;
 * what no group reaches keeps esbuild's chunks.
 *
 * Why: esbuild makes a chunk for every set of entry points that share code, and every
 * `import()` is an entry point, so `raf validate` loaded its 350 KB as 23 files with 86 imports
 * between them. Each module costs a Node process about half a millisecond (resolve, read, link),
 * whatever its size: 23 modules cost more than their compile time. Rollup (`manualChunks`) does
 * the regrouping, carrying esbuild's source maps through; code is not transformed
 * (`treeshake: false`).
 */
export async function groupChunks(options: {
  from: string;
  to: string;
  groups: readonly (readonly [name: string, entries: readonly string[]])[];
  /** Put at the top of every chunk. */
  banner?: string;
}): Promise<void> {
  const { from, to } = options;
  const { outputs } = JSON.parse(readFileSync(join(from, 'metafile-esm.json'), 'utf8')) as Metafile;
  const entry = (source: string) => {
    const output = Object.keys(outputs).find((k) => outputs[k]?.entryPoint === source);
    if (!output) throw new Error(`group-chunks: no entry point ${source} in the metafile`);
    return output;
  };
  const bin = entry('src/bin.ts');
  const groupOf = new Map<string, string>();
  for (const [name, entries] of options.groups) {
    const seen = new Set<string>();
    const stack = entries.map(entry);
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      const output = outputs[next];
      if (!output || seen.has(next) || groupOf.has(next)) continue;
      seen.add(next);
      if (next !== bin) groupOf.set(next, name);
      for (const i of output.imports) if (i.kind === 'import-statement') stack.push(i.path);
    }
  }
  const chunkOf = new Map([...groupOf].map(([output, name]) => [resolve(from, basename(output)), name]));

  const bundle = await rollup({
    input: { bin: resolve(from, 'bin.js') },
    preserveEntrySignatures: 'strict',
    treeshake: false,
    plugins: [
      {
        name: 'esbuild-output',
        // Chunks import each other by relative path; everything else (node:, externals) stays as is.
        resolveId: (id, importer) =>
          importer === undefined ? id : id.startsWith('.') ? resolve(dirname(importer), id) : false,
        load: (id) => {
          const map = `${id}.map`;
          return { code: readFileSync(id, 'utf8'), map: existsSync(map) ? readFileSync(map, 'utf8') : null };
        },
      },
    ],
    onwarn: (warning, warn) => {
      // esbuild's chunks import each other both ways; the order is esbuild's and stays correct.
      if (warning.code !== 'CIRCULAR_DEPENDENCY' && warning.code !== 'UNUSED_EXTERNAL_IMPORT') warn(warning);
    },
  });
  try {
    await bundle.write({
      dir: to,
      format: 'es',
      compact: true,
      ...(options.banner && { banner: options.banner }),
      sourcemap: true,
      entryFileNames: '[name].js',
      chunkFileNames: '[name]-[hash].js',
      manualChunks: (id) => chunkOf.get(id),
    });
  } finally {
    await bundle.close();
  }
  chmodSync(join(to, 'bin.js'), 0o755);
  rmSync(from, { recursive: true, force: true });
}
