export { evaluate, FUNCTION_NAMES, isTruthy, type Scope, toText } from './evaluate.js';
export { ExpressionError } from './expression-error.js';
export { type Expr, parseExpression } from './parser.js';
