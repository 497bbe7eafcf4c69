import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// `vite build` runs after this and writes the app to dist/app (tsup's clean would remove it).
export default defineConfig(packageBuild(['src/index.ts', 'src/testing/index.ts']));
