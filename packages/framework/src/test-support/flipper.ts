import { rename } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Flips `root/sub` between the folder `root/sub-real` and the link `root/sub-link` (to outside)
 * until stopped: the worst neighbour for a tool that checks a path and then uses it. The folder
 * stays `holdMs` at a time (slower tools need longer to ever succeed), the link 1 ms.
 */
export function startFlipping(root: string, holdMs = 1): { stop(): Promise<void> } {
  let flipping = true;
  const flipper = (async () => {
    while (flipping) {
      await rename(join(root, 'sub-real'), join(root, 'sub')).catch(() => {});
      await new Promise((r) => setTimeout(r, holdMs));
      await rename(join(root, 'sub'), join(root, 'sub-real')).catch(() => {});
      await rename(join(root, 'sub-link'), join(root, 'sub')).catch(() => {});
      await new Promise((r) => setTimeout(r, 1));
      await rename(join(root, 'sub'), join(root, 'sub-link')).catch(() => {});
    }
  })();
  return {
    stop: async () => {
      flipping = false;
      await flipper;
    },
  };
}
