import { encodeLlamaModel, vocabulary } from '../testing/tiny-model.js';

export interface ScriptedCall {
  /** The tool the model calls. */
  tool: string;
  /** The arguments as the model writes them, one token each (`▁` for a space; no piece twice). */
  argumentPieces: readonly string[];
  /** What the model says once the tool's result is in the conversation. */
  answer: string;
}

/**
 * A model that always calls one tool, then answers: a bigram model (each token decides the next
 * one alone) whose greedy output is node-llama-cpp's default function-call syntax,
 * `||call: tool(<arguments>)`, then, after the result line node-llama-cpp writes back
 * (it ends in a newline), `answer` and the end of the turn.
 *
 * The attention and feed-forward outputs are zero, so the hidden state is the token's embedding:
 * a one-hot of the token's class (its place in the script; anything else is "start"), and the
 * output row of the class's successor has a 1 there.
 */
export function scriptedToolCallModelBytes(script: ScriptedCall): Uint8Array {
  const chain = ['||call:▁', script.tool, '(', ...script.argumentPieces, ')'];
  const answer = script.answer.replaceAll(' ', '▁');
  const vocab = vocabulary([...chain, answer]);
  const id = (piece: string) => {
    const index = vocab.tokens.indexOf(piece);
    if (index < 0) throw new Error(`no token ${piece}`);
    return index;
  };
  const EOS = 2;
  const NEWLINE = id('<0x0A>');
  // class → next token; class 0 ("start") is every token the script does not name.
  const next: number[] = [id(chain[0] as string)];
  const classOf = new Map<number, number>();
  chain.forEach((piece, index) => {
    classOf.set(id(piece), index + 1);
    next.push(index + 1 < chain.length ? id(chain[index + 1] as string) : EOS);
  });
  classOf.set(NEWLINE, next.length);
  next.push(id(answer));
  classOf.set(id(answer), next.length);
  next.push(EOS);

  const nEmbd = 64;
  const nVocab = vocab.tokens.length;
  const embeddings = new Float32Array(nEmbd * nVocab);
  for (let token = 0; token < nVocab; token++) embeddings[token * nEmbd + (classOf.get(token) ?? 0)] = 1;
  const output = new Float32Array(nEmbd * nVocab);
  next.forEach((token, cls) => {
    output[token * nEmbd + cls] = 1;
  });
  return encodeLlamaModel({
    vocab,
    embeddingLength: nEmbd,
    blockCount: 1,
    feedForwardLength: 32,
    name: 'raf-scripted',
    contextLength: 8192,
    tokenEmbeddings: embeddings,
    output,
    projection: (count) => new Float32Array(count),
  });
}
