/** Turns texts into vectors (the upstream `IEmbeddingModel`). */
export interface IEmbeddingModel {
  /** Stored with the index: a different model means a rebuild. */
  readonly modelId: string;
  /** One vector per text, in order. */
  embed(texts: readonly string[], options: { signal: AbortSignal }): Promise<Float32Array[]>;
}
