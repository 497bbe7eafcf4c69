import type { FSWatcher } from 'chokidar';

/**
 * Watches a wiki folder (chokidar) and hands every created, changed or deleted file to
 * `onChange`. The watcher does not keep the process alive (`persistent: false`): a one-shot
 * `raf run` still exits when its turn is done.
 */
export async function watchWiki(
  root: string,
  onChange: (path: string) => void,
): Promise<() => Promise<void>> {
  const { watch } = await import('chokidar');
  const watcher: FSWatcher = watch(root, {
    ignoreInitial: true,
    persistent: false,
    ignored: (path: string) =>
      /(^|[\\/])(\.git|\.raf|node_modules|\.obsidian|\.trash)([\\/]|$)/.test(path) ||
      /[\\/]\.[^\\/]*\.(raf-)?tmp/.test(path),
  });
  for (const event of ['add', 'change', 'unlink'] as const)
    watcher.on(event, (path: string) => onChange(path));
  watcher.on('unlinkDir', (path: string) => onChange(path));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return () => watcher.close();
}
