import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// The page converter's worker thread is an entry of its own, `dist/convert-worker.js`, beside the
// chunk that starts it (`src/fetch/convert.ts` looks next to its own `import.meta.url`).
export default defineConfig({
  ...packageBuild(['src/index.ts', 'src/http/index.ts']),
  entry: {
    index: 'src/index.ts',
    'http/index': 'src/http/index.ts',
    'convert-worker': 'src/fetch/convert-worker.ts',
  },
  dts: { entry: { index: 'src/index.ts', 'http/index': 'src/http/index.ts' } },
});
