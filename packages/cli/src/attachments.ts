import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import {
  type ChatMessage,
  type ContentPart,
  mediaTypeOfName,
  partForFile,
  textPart,
  userMessage,
} from '@raf/core';
import { CliError } from './io.js';

/** One attachment's cap: past it every provider refuses the request anyway (Anthropic: 32 MB a PDF). */
export const ATTACHMENT_MAX_BYTES = 20 * 1024 * 1024;

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

/**
 * The media type of an attachment by its name, or why it cannot be one: the one check `--attach`
 * and the studio's file drop share (a type no model reads, or a file over the cap).
 */
export function attachmentMediaType(name: string, size: number): { mediaType: string } | { problem: string } {
  const mediaType = mediaTypeOfName(name);
  if (!mediaType)
    return {
      problem:
        'cannot tell what kind of file it is; attach an image (png, jpg, gif, webp), a PDF or a text file (txt, md, csv, json, html)',
    };
  if (size > ATTACHMENT_MAX_BYTES)
    return { problem: `${size} bytes, over the ${ATTACHMENT_MAX_BYTES}-byte cap` };
  return { mediaType };
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
