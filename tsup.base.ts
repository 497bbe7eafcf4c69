import type { Options } from 'tsup';

/** The build every package shares: ESM only, types, source maps, Node 20. */
export function packageBuild(entry: string[]): Options {
  return { entry, format: ['esm'], target: 'node20', dts: true, sourcemap: true, clean: true };
}
