import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// The search walker's worker thread and the sub-agent worker process are entries of their own,
// `dist/walker-worker.js` and `dist/sub-agent-worker.js`, beside the chunk that starts them
// (`walker-pool.ts` and `worker-process.ts` look next to their own `import.meta.url`).
export default defineConfig({
  ...packageBuild(['src/index.ts']),
  entry: {
    index: 'src/index.ts',
    'walker-worker': 'src/workspace/operations/walker-worker.ts',
    'sub-agent-worker': 'src/sub-agents/sub-agent-worker.ts',
  },
  dts: { entry: { index: 'src/index.ts' } },
});
