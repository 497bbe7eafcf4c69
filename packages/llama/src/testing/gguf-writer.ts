import { writeFile } from 'node:fs/promises';

/**
 * A minimal GGUF (version 3) writer, after ggml's `docs/gguf.md`: a header, typed metadata, tensor
 * infos, then each tensor's data aligned to `general.alignment` (32). Enough to make small models
 * for tests; it writes F32 tensors only.
 */

/** A metadata value with its GGUF type; plain numbers need one (u32, i32, f32, …). */
export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'u64'; value: bigint }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; of: 'string'; value: readonly string[] }
  | { type: 'array'; of: 'f32' | 'i32' | 'u32'; value: ArrayLike<number> };

/** A tensor by its ggml shape (`ne0` first: the innermost, contiguous dimension). */
export interface GgufTensor {
  name: string;
  shape: readonly number[];
  data: Float32Array;
}

const ALIGNMENT = 32;
const TYPE = {
  u32: 4,
  i32: 5,
  f32: 6,
  bool: 7,
  string: 8,
  array: 9,
  u64: 10,
} as const;
const GGML_TYPE_F32 = 0;

/** Bytes appended in order, into one buffer at the end. */
class ByteSink {
  private readonly parts: Uint8Array[] = [];
  length = 0;

  bytes(part: Uint8Array): void {
    this.parts.push(part);
    this.length += part.byteLength;
  }

  private scalar(size: number, write: (view: DataView) => void): void {
    const part = new Uint8Array(size);
    write(new DataView(part.buffer));
    this.bytes(part);
  }

  u32(value: number): void {
    this.scalar(4, (v) => v.setUint32(0, value, true));
  }
  i32(value: number): void {
    this.scalar(4, (v) => v.setInt32(0, value, true));
  }
  f32(value: number): void {
    this.scalar(4, (v) => v.setFloat32(0, value, true));
  }
  u64(value: bigint | number): void {
    this.scalar(8, (v) => v.setBigUint64(0, BigInt(value), true));
  }
  u8(value: number): void {
    this.bytes(Uint8Array.of(value));
  }
  string(value: string): void {
    const encoded = new TextEncoder().encode(value);
    this.u64(encoded.byteLength);
    this.bytes(encoded);
  }
  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment;
    if (pad > 0) this.bytes(new Uint8Array(pad));
  }
  concat(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.byteLength;
    }
    return out;
  }
}

function writeValue(sink: ByteSink, entry: GgufValue): void {
  sink.u32(TYPE[entry.type]);
  switch (entry.type) {
    case 'u32':
      sink.u32(entry.value);
      return;
    case 'i32':
      sink.i32(entry.value);
      return;
    case 'f32':
      sink.f32(entry.value);
      return;
    case 'u64':
      sink.u64(entry.value);
      return;
    case 'bool':
      sink.u8(entry.value ? 1 : 0);
      return;
    case 'string':
      sink.string(entry.value);
      return;
    case 'array': {
      sink.u32(TYPE[entry.of]);
      sink.u64(entry.value.length);
      if (entry.of === 'string') {
        for (const item of entry.value as readonly string[]) sink.string(item);
        return;
      }
      const write = entry.of === 'f32' ? sink.f32 : entry.of === 'i32' ? sink.i32 : sink.u32;
      for (let i = 0; i < entry.value.length; i++) write.call(sink, entry.value[i] as number);
      return;
    }
  }
}

/** The bytes of a GGUF file with these metadata entries and F32 tensors. */
export function encodeGguf(metadata: Readonly<Record<string, GgufValue>>, tensors: readonly GgufTensor[]) {
  const sink = new ByteSink();
  sink.bytes(new TextEncoder().encode('GGUF'));
  sink.u32(3);
  sink.u64(tensors.length);
  sink.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) {
    sink.string(key);
    writeValue(sink, value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    const elements = tensor.shape.reduce((a, b) => a * b, 1);
    if (elements !== tensor.data.length)
      throw new Error(
        `tensor ${tensor.name}: shape ${tensor.shape.join('×')} ≠ ${tensor.data.length} values`,
      );
    sink.string(tensor.name);
    sink.u32(tensor.shape.length);
    for (const dim of tensor.shape) sink.u64(dim);
    sink.u32(GGML_TYPE_F32);
    sink.u64(offset);
    offset += Math.ceil(tensor.data.byteLength / ALIGNMENT) * ALIGNMENT;
  }
  sink.padTo(ALIGNMENT);
  for (const tensor of tensors) {
    const bytes = new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
    // Little-endian hosts store Float32Array as GGUF wants it; copy so the caller's array stays theirs.
    sink.bytes(bytes.slice());
    sink.padTo(ALIGNMENT);
  }
  return sink.concat();
}

/** Writes a GGUF file (see `encodeGguf`). */
export async function writeGguf(
  path: string,
  metadata: Readonly<Record<string, GgufValue>>,
  tensors: readonly GgufTensor[],
): Promise<void> {
  await writeFile(path, encodeGguf(metadata, tensors));
}
