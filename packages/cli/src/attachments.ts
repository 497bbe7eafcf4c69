import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import {
  attachmentMediaType,
  type ChatMessage,
  type ContentPart,
  partForFile,
  textPart,
  userMessage,
} from '@raf/core';
import { CliError } from './io.js';

// The cap and the media-type check live in @raf/core: `raf serve`'s /v1 API checks with the same.
export { ATTACHMENT_MAX_BYTES, attachmentMediaType } from '@raf/core';

/**
 * `raf run -i TEXT --attach FILE…`: the input as one user message, the text first and each file as
 * an image or file part. Files are the user's own (named on the command line), read whole but
 * capped; a folder, a FIFO or a type no model reads is refused before the agent is built.
 */
export async function attachedInput(
  text: string,
  files: readonly string[],
  cwd: string,
): Promise<ChatMessage> {
  const parts: ContentPart[] = [];
  if (text) parts.push(textPart(text));
  for (const file of files) parts.push(await readAttachment(file, cwd));
  return userMessage(parts);
}

async function readAttachment(file: string, cwd: string): Promise<ContentPart> {
  const byName = attachmentMediaType(file, 0);
  if ('problem' in byName) throw new CliError(`--attach ${file}: ${byName.problem}`);
  const { mediaType } = byName;
  // O_NONBLOCK: a FIFO named by mistake must not hang the run; it is refused as not a file.
  const handle = await open(resolve(cwd, file), constants.O_RDONLY | constants.O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      throw new CliError(`--attach ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
    },
  );
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new CliError(`--attach ${file}: not a regular file`);
    const bySize = attachmentMediaType(file, info.size);
    if ('problem' in bySize) throw new CliError(`--attach ${file}: ${bySize.problem}`);
    const bytes = await handle.readFile();
    return partForFile(bytes, mediaType, basename(file));
  } finally {
    await handle.close();
  }
}
