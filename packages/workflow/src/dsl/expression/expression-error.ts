import { RafError } from '@raf/core';

/** A bad expression: where (offset in the text after `=`) and why. */
export class ExpressionError extends RafError {
  readonly offset: number;

  constructor(message: string, offset: number) {
    super('RAF_WORKFLOW', message);
    this.name = 'ExpressionError';
    this.offset = offset;
  }
}
