import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// The search walker's worker thread is its own entry, `dist/walker-worker.js`, beside the chunk
// that starts it (`walker-pool.ts` looks next to its own `import.meta.url`).
export default defineConfig({
  ...packageBuild(['src/index.ts']),
  entry: { index: 'src/index.ts', 'walker-worker': 'src/workspace/operations/walker-worker.ts' },
  dts: { entry: { index: 'src/index.ts' } },
});
