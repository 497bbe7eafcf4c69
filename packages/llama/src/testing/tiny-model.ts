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

/**
 * A SentencePiece vocabulary: `<unk> <s> </s>`, the 256 byte tokens, characters, words, then
 * `extra` pieces (`▁` for a space).
 */
export function vocabulary(extra: readonly string[] = []) {
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
  for (const piece of extra) pieces.add(piece);
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

/** What a llama-architecture GGUF needs besides its hyperparameters: a vocabulary and weights. */
export interface LlamaModelParts {
  vocab: ReturnType<typeof vocabulary>;
  embeddingLength: number;
  blockCount: number;
  feedForwardLength: number;
  name: string;
  contextLength: number;
  /** `[nEmbd, nVocab]`: one row of `nEmbd` values per token. */
  tokenEmbeddings: Float32Array;
  /** `[nEmbd, nVocab]`: the logit of each token is its row · the normalized hidden state. */
  output: Float32Array;
  /** A block's projection matrix of `count` values (`fanIn` inputs each). */
  projection(count: number, fanIn: number): Float32Array;
}

const HEADS = 4;

/** The bytes of a llama-architecture GGUF with a SentencePiece vocabulary and F32 weights. */
export function encodeLlamaModel(parts: LlamaModelParts): Uint8Array {
  const { tokens, types, scores } = parts.vocab;
  const nVocab = tokens.length;
  const nEmbd = parts.embeddingLength;
  const nFf = parts.feedForwardLength;
  const ones = (count: number) => new Float32Array(count).fill(1);
  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', shape: [nEmbd, nVocab], data: parts.tokenEmbeddings },
    { name: 'output_norm.weight', shape: [nEmbd], data: ones(nEmbd) },
    { name: 'output.weight', shape: [nEmbd, nVocab], data: parts.output },
  ];
  for (let block = 0; block < parts.blockCount; block++) {
    const at = (name: string) => `blk.${block}.${name}.weight`;
    const square = () => parts.projection(nEmbd * nEmbd, nEmbd);
    tensors.push(
      { name: at('attn_norm'), shape: [nEmbd], data: ones(nEmbd) },
      { name: at('attn_q'), shape: [nEmbd, nEmbd], data: square() },
      { name: at('attn_k'), shape: [nEmbd, nEmbd], data: square() },
      { name: at('attn_v'), shape: [nEmbd, nEmbd], data: square() },
      { name: at('attn_output'), shape: [nEmbd, nEmbd], data: square() },
      { name: at('ffn_norm'), shape: [nEmbd], data: ones(nEmbd) },
      { name: at('ffn_gate'), shape: [nEmbd, nFf], data: parts.projection(nEmbd * nFf, nEmbd) },
      { name: at('ffn_up'), shape: [nEmbd, nFf], data: parts.projection(nEmbd * nFf, nEmbd) },
      { name: at('ffn_down'), shape: [nFf, nEmbd], data: parts.projection(nFf * nEmbd, nFf) },
    );
  }
  const u32 = (value: number): GgufValue => ({ type: 'u32', value });
  const metadata: Record<string, GgufValue> = {
    'general.architecture': { type: 'string', value: 'llama' },
    'general.name': { type: 'string', value: parts.name },
    'general.alignment': u32(32),
    'llama.context_length': u32(parts.contextLength),
    'llama.embedding_length': u32(nEmbd),
    'llama.block_count': u32(parts.blockCount),
    'llama.feed_forward_length': u32(nFf),
    'llama.attention.head_count': u32(HEADS),
    'llama.attention.head_count_kv': u32(HEADS),
    'llama.rope.dimension_count': u32(nEmbd / HEADS),
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

/**
 * The bytes of a tiny llama-architecture GGUF with random F32 weights and a small SentencePiece
 * vocabulary. It loads and generates in llama.cpp like any model; what it says is gibberish made
 * of its vocabulary's words. Control and byte tokens never win a greedy pick (their output rows
 * are zero), so greedy output is whole words and never ends before `maxTokens`.
 */
export function tinyModelBytes(options: TinyModelOptions = {}): Uint8Array {
  const vocab = vocabulary();
  const nVocab = vocab.tokens.length;
  const nEmbd = options.embeddingLength ?? 64;
  const normal = normalSampler(options.seed ?? 1);
  const random = (count: number, scale: number) =>
    Float32Array.from({ length: count }, () => normal() * scale);
  const output = random(nEmbd * nVocab, 0.5);
  for (let token = 0; token < nVocab; token++) {
    if (vocab.types[token] !== TOKEN_NORMAL) output.fill(0, token * nEmbd, (token + 1) * nEmbd);
  }
  return encodeLlamaModel({
    vocab,
    embeddingLength: nEmbd,
    blockCount: options.blockCount ?? 2,
    feedForwardLength: nEmbd * 2,
    name: options.name ?? 'raf-tiny',
    contextLength: options.contextLength ?? 8192,
    tokenEmbeddings: random(nEmbd * nVocab, 1),
    output,
    projection: (count, fanIn) => random(count, 1 / Math.sqrt(fanIn)),
  });
}

/** Writes `tinyModelBytes(options)` to `path` (a `.gguf` file). */
export async function writeTinyModel(path: string, options: TinyModelOptions = {}): Promise<void> {
  await writeFile(path, tinyModelBytes(options));
}
