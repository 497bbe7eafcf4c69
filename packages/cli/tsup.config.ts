import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';
import { groupChunks } from './scripts/group-chunks.js';

const BIN_STAGING = 'dist/.bin';

/**
 * Every bare specifier stays an import: the CLI runs on the installed packages (`@raf/*`, zod,
 * yaml, the optional extensions, workflow, studio and OpenTelemetry), so no code is both in this
 * bundle and installed beside it, and an extension's `@raf/core` is the CLI's.
 */
const INSTALLED = [/^[^./]/];

export default defineConfig([
  packageBuild(['src/index.ts']),
  {
    // The `raf` binary: the CLI's own code, minified, a chunk per command (a CLI's cold start pays
    // for every module it loads and every byte it compiles: `pnpm bench --only cold-start`).
    // esbuild writes it to a staging folder; `groupChunks` then puts what `raf validate` loads
    // into one chunk.
    ...packageBuild(['src/bin.ts']),
    outDir: BIN_STAGING,
    dts: false,
    clean: false,
    external: INSTALLED,
    minify: true,
    metafile: true,
    onSuccess: async () => {
      await groupChunks({
        from: BIN_STAGING,
        to: 'dist',
        groups: [
          // What `raf validate` loads: reading, checking and planning an agent file.
          ['core', ['src/bin.ts', 'src/main.ts', 'src/commands/validate.ts']],
          // What building, running and inspecting an agent adds.
          ['agent', ['src/commands/run.ts', 'src/commands/inspect.ts']],
        ],
      });
    },
  },
]);
