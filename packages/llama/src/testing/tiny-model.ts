import { writeFile } from 'node:fs/promises';
import { encodeGguf, type GgufTensor, type GgufValue } from './gguf-writer.js';

/** The shape of a tiny random model; the defaults make a file of about 0.5 MB. */
export interface TinyModelOptions {
  /** Seed of the weights: the same seed gives the same file, and the same greedy output. */
  seed?: number;
  /** Context length the model declares (`llama.context_length`). Default 8192. */
  contextLength?: number;
  /** Width of the hidden state. Default 64. */
  embeddingLength?: number;
  /** Transformer blocks. Default 2. */
  blockCount?: number;
  /** `general.name`. Default `raf-tiny`. */
  name?: string;
}

/** Words of the vocabulary (with their prefixes, so the tokenizer can build them): the gibberish it speaks. */
const WORDS = [
  'the',
  'memory',
  'agent',
  'note',
  'user',
  'likes',
  'tea',
  'and',
  'page',
  'index',
  'saves',
  'a',
  'topic',
  'recall',
  'local',
  'model',
  'runs',
  'on',
  'cpu',
  'small',
  'brain',
  'writes',
];
const CHARACTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:;!?\'"()[]{}-_/#*=+<>|@';

const TOKEN_NORMAL = 1;
const TOKEN_UNKNOWN = 2;
const TOKEN_CONTROL = 3;
const TOKEN_BYTE = 6;

/** A SentencePiece vocabulary: `<unk> <s> </s>`, the 256 byte tokens, characters, then words. */
function vocabulary() {
  const tokens: string[] = ['<unk>', '<s>', '</s>'];
  const types: number[] = [TOKEN_UNKNOWN, TOKEN_CONTROL, TOKEN_CONTROL];
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TOKEN_BYTE);
  }
  const pieces = new Set<string>(['▁', ...CHARACTERS]);
  for (const word of WORDS) {
    for (let end = 1; end <= word.length; end++) pieces.add(`▁${word.slice(0, end)}`);
  }
  for (const piece of pieces) {
    tokens.push(piece);
    types.push(TOKEN_NORMAL);
  }
  // Longer pieces score higher, so the tokenizer merges into whole words.
  const scores = tokens.map((token, i) => (types[i] === TOKEN_NORMAL ? token.length - 10 : -1000));
  return { tokens, types, scores };
}

/** mulberry32 and Box–Muller: deterministic normal samples from a seed. */
function normalSampler(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/**
 * The bytes of a tiny llama-architecture GGUF with random F32 weights and a small SentencePiece
 * vocabulary. It loads and generates in llama.cpp like any model; what it says is gibberish made
 * of its vocabulary's words. Control and byte tokens never win a greedy pick (their output rows
 * are zero), so greedy output is whole words and never ends before `maxTokens`.
 */
export function tinyModelBytes(options: TinyModelOptions = {}): Uint8Array {
  const { tokens, types, scores } = vocabulary();
  const nVocab = tokens.length;
  const nEmbd = options.embeddingLength ?? 64;
  const nHead = 4;
  const nFf = nEmbd * 2;
  const nLayer = options.blockCount ?? 2;
  const normal = normalSampler(options.seed ?? 1);
  const random = (count: number, scale: number) =>
    Float32Array.from({ length: count }, () => normal() * scale);
  const ones = (count: number) => new Float32Array(count).fill(1);
  const projection = 1 / Math.sqrt(nEmbd);

  const output = random(nEmbd * nVocab, 0.5);
  for (let token = 0; token < nVocab; token++) {
    if (types[token] !== TOKEN_NORMAL) output.fill(0, token * nEmbd, (token + 1) * nEmbd);
  }
  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', shape: [nEmbd, nVocab], data: random(nEmbd * nVocab, 1) },
    { name: 'output_norm.weight', shape: [nEmbd], data: ones(nEmbd) },
    { name: 'output.weight', shape: [nEmbd, nVocab], data: output },
  ];
  for (let block = 0; block < nLayer; block++) {
    const at = (name: string) => `blk.${block}.${name}.weight`;
    tensors.push(
      { name: at('attn_norm'), shape: [nEmbd], data: ones(nEmbd) },
      { name: at('attn_q'), shape: [nEmbd, nEmbd], data: random(nEmbd * nEmbd, projection) },
      { name: at('attn_k'), shape: [nEmbd, nEmbd], data: random(nEmbd * nEmbd, projection) },
      { name: at('attn_v'), shape: [nEmbd, nEmbd], data: random(nEmbd * nEmbd, projection) },
      { name: at('attn_output'), shape: [nEmbd, nEmbd], data: random(nEmbd * nEmbd, projection) },
      { name: at('ffn_norm'), shape: [nEmbd], data: ones(nEmbd) },
      { name: at('ffn_gate'), shape: [nEmbd, nFf], data: random(nEmbd * nFf, projection) },
      { name: at('ffn_up'), shape: [nEmbd, nFf], data: random(nEmbd * nFf, projection) },
      { name: at('ffn_down'), shape: [nFf, nEmbd], data: random(nFf * nEmbd, 1 / Math.sqrt(nFf)) },
    );
  }
  const u32 = (value: number): GgufValue => ({ type: 'u32', value });
  const metadata: Record<string, GgufValue> = {
    'general.architecture': { type: 'string', value: 'llama' },
    'general.name': { type: 'string', value: options.name ?? 'raf-tiny' },
    'general.alignment': u32(32),
    'llama.context_length': u32(options.contextLength ?? 8192),
    'llama.embedding_length': u32(nEmbd),
    'llama.block_count': u32(nLayer),
    'llama.feed_forward_length': u32(nFf),
    'llama.attention.head_count': u32(nHead),
    'llama.attention.head_count_kv': u32(nHead),
    'llama.rope.dimension_count': u32(nEmbd / nHead),
    'llama.attention.layer_norm_rms_epsilon': { type: 'f32', value: 1e-5 },
    'llama.vocab_size': u32(nVocab),
    'tokenizer.ggml.model': { type: 'string', value: 'llama' },
    'tokenizer.ggml.tokens': { type: 'array', of: 'string', value: tokens },
    'tokenizer.ggml.scores': { type: 'array', of: 'f32', value: scores },
    'tokenizer.ggml.token_type': { type: 'array', of: 'i32', value: types },
    'tokenizer.ggml.unknown_token_id': u32(0),
    'tokenizer.ggml.bos_token_id': u32(1),
    'tokenizer.ggml.eos_token_id': u32(2),
    'tokenizer.ggml.add_bos_token': { type: 'bool', value: true },
    'tokenizer.ggml.add_eos_token': { type: 'bool', value: false },
  };
  return encodeGguf(metadata, tensors);
}

/** Writes `tinyModelBytes(options)` to `path` (a `.gguf` file). */
export async function writeTinyModel(path: string, options: TinyModelOptions = {}): Promise<void> {
  await writeFile(path, tinyModelBytes(options));
}
