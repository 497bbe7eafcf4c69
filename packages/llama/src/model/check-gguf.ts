import { stat } from 'node:fs/promises';

/** Bytes per block and values per block of the ggml tensor types models commonly ship in. */
const TYPE_SIZES: Readonly<Record<number, readonly [bytes: number, values: number]>> = {
  0: [4, 1], // F32
  1: [2, 1], // F16
  2: [18, 32], // Q4_0
  3: [20, 32], // Q4_1
  6: [22, 32], // Q5_0
  7: [24, 32], // Q5_1
  8: [34, 32], // Q8_0
  10: [84, 256], // Q2_K
  11: [110, 256], // Q3_K
  12: [144, 256], // Q4_K
  13: [176, 256], // Q5_K
  14: [210, 256], // Q6_K
  30: [2, 1], // BF16
};

/**
 * What `validate` can tell without loading the model: the GGUF header parses (magic, version,
 * metadata) and the file is as long as its tensor table says. node-llama-cpp's header reader
 * reads past the end of a cut file as zeros, so the length is checked here.
 */
export async function checkGgufFile(path: string): Promise<void> {
  const { readGgufFileInfo } = await import('node-llama-cpp');
  const info = await readGgufFileInfo(path, { readTensorInfo: true });
  const { size } = await stat(path);
  let end = info.infoEndOffset ?? 0;
  for (const tensor of info.fullTensorInfo ?? []) {
    if (tensor.filePart !== 1) continue;
    const sizes = TYPE_SIZES[tensor.ggmlType];
    const values = tensor.dimensions.reduce((a: number, b) => a * Number(b), 1);
    const bytes = sizes ? Math.ceil(values / sizes[1]) * sizes[0] : 1;
    end = Math.max(end, Number(tensor.fileOffset) + bytes);
  }
  if (end > size)
    throw new Error(
      `the file is cut short: its tensors need ${end} bytes, it has ${size} (an interrupted copy?)`,
    );
}
