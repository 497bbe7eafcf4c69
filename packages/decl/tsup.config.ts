import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// A sub-agent's worker process imports `dist/worker-factory.js` (beside the chunk that names it,
// `workerFactoryModule()`) to rebuild the sub-agent from the agent file.
export default defineConfig({
  ...packageBuild(['src/index.ts']),
  entry: { index: 'src/index.ts', 'worker-factory': 'src/builder/worker-factory.ts' },
  dts: { entry: { index: 'src/index.ts' } },
});
