import type { AbortHandle } from '../http/abort-handle.js';

/** Waits `ms`, or rejects with the handle's reason as soon as it aborts. */
export function abortableSleep(ms: number, handle: AbortHandle): Promise<void> {
  if (handle.aborted) return Promise.reject(handle.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(handle.reason);
    };
    const timer = setTimeout(() => {
      handle.removeListener('abort', onAbort);
      resolve();
    }, ms);
    handle.once('abort', onAbort);
  });
}
