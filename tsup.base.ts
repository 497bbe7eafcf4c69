import type { Options } from 'tsup';

/**
 * The build every package shares: ESM only, types, source maps, Node 20. The maps point at the
 * package's own `src/` (shipped beside `dist/`) instead of embedding it: the sources once, not
 * twice, in every tarball (SPEC §16: no map carries embedded sources).
 */
export function packageBuild(entry: string[]): Options {
  return {
    entry,
    format: ['esm'],
    target: 'node20',
    dts: true,
    sourcemap: true,
    clean: true,
    esbuildOptions(options) {
      options.sourcesContent = false;
    },
  };
}
