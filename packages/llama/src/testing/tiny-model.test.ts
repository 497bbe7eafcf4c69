import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGgufFileInfo } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeGguf } from './gguf-writer.js';
import { tinyModelBytes } from './tiny-model.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-gguf-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the GGUF writer', () => {
  it('writes metadata of every type and aligned tensors that node-llama-cpp reads back', async () => {
    const path = join(dir, 'kinds.gguf');
    await writeFile(
      path,
      encodeGguf(
        {
          'general.architecture': { type: 'string', value: 'llama' },
          'test.u32': { type: 'u32', value: 7 },
          'test.i32': { type: 'i32', value: -3 },
          'test.f32': { type: 'f32', value: 0.5 },
          'test.u64': { type: 'u64', value: 2n ** 40n },
          'test.flag': { type: 'bool', value: true },
          'test.words': { type: 'array', of: 'string', value: ['a', 'ü'] },
          'test.numbers': { type: 'array', of: 'i32', value: [1, -2] },
        },
        [
          { name: 'first', shape: [3], data: Float32Array.of(1, 2, 3) },
          { name: 'second', shape: [2, 2], data: Float32Array.of(1, 2, 3, 4) },
        ],
      ),
    );
    const info = await readGgufFileInfo(path, { readTensorInfo: true });
    expect(info.version).toBe(3);
    expect((info.metadata as unknown as { test: unknown }).test).toEqual({
      u32: 7,
      i32: -3,
      f32: 0.5,
      u64: 2n ** 40n,
      flag: true,
      words: ['a', 'ü'],
      numbers: [1, -2],
    });
    expect(
      info.tensorInfo?.map((t) => ({
        name: t.name,
        dimensions: t.dimensions.map(Number),
        offset: Number(t.offset),
      })),
    ).toEqual([
      { name: 'first', dimensions: [3], offset: 0 },
      { name: 'second', dimensions: [2, 2], offset: 32 },
    ]);
  });

  it('rejects a tensor whose data does not fit its shape', () => {
    expect(() => encodeGguf({}, [{ name: 'bad', shape: [2, 2], data: new Float32Array(3) }])).toThrow(
      'tensor bad: shape 2×2 ≠ 3 values',
    );
  });

  it('the tiny model is a llama model with a SentencePiece vocabulary, the same for the same seed', async () => {
    const path = join(dir, 'tiny.gguf');
    const bytes = tinyModelBytes({ seed: 7, blockCount: 1 });
    expect(tinyModelBytes({ seed: 7, blockCount: 1 })).toEqual(bytes);
    expect(tinyModelBytes({ seed: 8, blockCount: 1 })).not.toEqual(bytes);
    await writeFile(path, bytes);
    const info = await readGgufFileInfo(path);
    expect(info.metadata.general.architecture).toBe('llama');
    expect(info.metadata.tokenizer.ggml.model).toBe('llama');
    expect(info.tensorInfo).toHaveLength(3 + 9);
  });
});
