import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';
import { directImports } from './scripts/direct-imports.js';
import { groupChunks } from './scripts/group-chunks.js';

const BIN_STAGING = 'dist/.bin';
const REQUIRE_BANNER =
  "import { createRequire as __rafRequire } from 'node:module'; const require = __rafRequire(import.meta.url);";

/** zod's 40 translations are a third of the CLI bundle; the CLI speaks English (zod's default). */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build: { onResolve: Function; onLoad: Function }) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args: { importer: string; path: string }) =>
      args.importer.includes('/zod/') ? { path: 'zod-locales', namespace: 'raf-stub' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'raf-stub' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/**
 * `yaml` as ES modules (its `browser` build, plain ESM with no browser API) rather than its
 * CommonJS `dist`: esbuild hoists ES modules into the bundle and drops what is unused, where each
 * CommonJS file stays a wrapper run at start-up (`raf validate` spent about 8 ms evaluating them).
 */
const yamlAsEsm = {
  name: 'yaml-as-esm',
  setup(build: { onResolve: Function }) {
    build.onResolve({ filter: /^yaml$/ }, (args: { resolveDir: string }) => {
      const manifest = createRequire(join(args.resolveDir, 'noop.js')).resolve('yaml/package.json');
      return { path: join(dirname(manifest), 'browser/index.js') };
    });
  },
};

export default defineConfig([
  packageBuild(['src/index.ts']),
  {
    // The `raf` binary is one minified bundle: a CLI's cold start pays for every module it loads
    // and every byte it compiles (`pnpm bench --only cold-start`). esbuild writes it to a staging
    // folder; `groupChunks` then puts everything `raf validate` loads before it runs into one chunk.
    ...packageBuild(['src/bin.ts']),
    outDir: BIN_STAGING,
    dts: false,
    clean: false,
    // Everything but `@raf/studio`, which finds its built app next to its own module
    // (`studioAssetsDir()`), so it must load from its package, not from this bundle.
    // Everything else is bundled, extensions included (tsup's `noExternal` wins over `external`);
    // the OpenTelemetry SDK and the extensions sit in chunks loaded on first use.
    noExternal: [/^(?!@raf\/studio$)/],
    minify: true,
    esbuildPlugins: [zodEnglishOnly as never, yamlAsEsm as never, directImports()],
    esbuildOptions(options) {
      // The workspace packages from source: each module a file of its own, so each command's
      // chunks hold only what it imports (the built packages are one file per entry).
      options.conditions = ['@raf/source'];
    },
    metafile: true,
    onSuccess: async () => {
      // The `require` of bundled CommonJS code, once per final chunk (not once per esbuild chunk).
      await groupChunks({
        from: BIN_STAGING,
        to: 'dist',
        groups: [
          // What `raf validate` loads: reading, checking and planning an agent file.
          ['core', ['src/bin.ts', 'src/commands/validate.ts']],
          // What building, running and inspecting an agent adds.
          [
            'agent',
            [
              'src/commands/run.ts',
              'src/commands/inspect.ts',
              '../decl/src/builder/assemble-agent.ts',
              '../decl/src/explain/explain.ts',
              '../decl/src/registry/model-client.ts',
            ],
          ],
        ],
        banner: REQUIRE_BANNER,
      });
    },
  },
  {
    // Beside `bin.js`, where the bundled code looks for them: the search walker's worker thread,
    // the sub-agent worker process, and the module a worker imports to rebuild a sub-agent from
    // the agent file (bundled like `bin.js`).
    ...packageBuild([]),
    entry: {
      'walker-worker': '../framework/src/workspace/operations/walker-worker.ts',
      'sub-agent-worker': '../framework/src/sub-agents/sub-agent-worker.ts',
      'worker-factory': '../decl/src/builder/worker-factory.ts',
    },
    esbuildPlugins: [zodEnglishOnly as never, yamlAsEsm as never],
    dts: false,
    clean: false,
    noExternal: [/.*/],
    minify: true,
    banner: {
      js: "import { createRequire as __rafRequire } from 'node:module'; const require = __rafRequire(import.meta.url);",
    },
  },
]);
