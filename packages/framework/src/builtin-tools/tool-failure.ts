import { getErrorMessage } from '@raf/core';
import { ToolFailure } from '../errors/tool-errors.js';

export { ToolFailure };

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  ENOTEMPTY: 'Directory not empty',
  EEXIST: 'Already exists',
  EROFS: 'Read-only file system',
  ENOSPC: 'No space left on device',
  EBUSY: 'Resource busy',
};

/** Turns a file-system error into a sentence that names the path the model asked for. */
export function describeFsError(error: unknown, path: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = getErrorMessage(error);
  // Node's own messages repeat the code and an internal path; ours name the model's path.
  if (code && ERRNO_TEXT[code] && message.startsWith(`${code}:`)) return `${ERRNO_TEXT[code]}: '${path}'`;
  return message;
}

/** The guarded path must be an existing regular file; otherwise the model is told which it is not. */
export function requireFile<T extends { exists: boolean; kind?: string }>(
  file: T | undefined,
  path: string,
): T {
  if (!file?.exists) throw new ToolFailure(`No such file: '${path}'`);
  if (file.kind !== 'file') throw new ToolFailure(`'${path}' is not a regular file`);
  return file;
}
