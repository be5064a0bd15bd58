/**
 * A safe arithmetic evaluator for the built-in assistant's `calculate` tool: numbers, `+ - * / % ^`,
 * unary minus and parentheses. A hand-written recursive-descent parser; nothing is ever passed to
 * `eval` or `Function`, so an expression can compute a number and nothing else.
 */

/** An expression that is not valid arithmetic, or whose value is not a finite number. */
export class ArithmeticError extends Error {
  override readonly name = "ArithmeticError";
}

type Token = { type: "number"; value: number; at: number } | { type: "op"; value: string; at: number };

const MAX_LENGTH = 1000;
const MAX_DEPTH = 100;

/**
 * Evaluates an arithmetic expression. `^` is exponentiation and binds right (`2^3^2` = 512) and
 * tighter than unary minus (`-2^2` = -4); `%` is the remainder.
 *
 * @example
 * evaluateArithmetic("(2 + 3) * 4 ^ 2"); // 80
 */
export function evaluateArithmetic(expression: string): number {
  if (typeof expression !== "string") throw new ArithmeticError("The expression must be a string");
  if (expression.length > MAX_LENGTH)
    throw new ArithmeticError(`The expression is longer than ${MAX_LENGTH} characters`);
  const tokens = tokenize(expression);
  if (tokens.length === 0) throw new ArithmeticError("The expression is empty");
  let position = 0;
  let depth = 0;

  const peek = (): Token | undefined => tokens[position];
  const describe = (token: Token | undefined) =>
    token === undefined ? "the end of the expression" : `"${token.value}" at position ${token.at + 1}`;
  const isOp = (token: Token | undefined, ...ops: string[]) => token?.type === "op" && ops.includes(token.value);

  const parseSum = (): number => {
    let value = parseProduct();
    while (isOp(peek(), "+", "-")) {
      const op = (tokens[position++] as Token).value;
      const right = parseProduct();
      value = op === "+" ? value + right : value - right;
    }
    return value;
  };
  const parseProduct = (): number => {
    let value = parseUnary();
    while (isOp(peek(), "*", "/", "%")) {
      const token = tokens[position++] as Token;
      const right = parseUnary();
      if ((token.value === "/" || token.value === "%") && right === 0) {
        throw new ArithmeticError(`Division by zero at position ${token.at + 1}`);
      }
      value = token.value === "*" ? value * right : token.value === "/" ? value / right : value % right;
    }
    return value;
  };
  const parseUnary = (): number => {
    if (isOp(peek(), "-", "+")) {
      const op = (tokens[position++] as Token).value;
      const value = nested(parseUnary);
      return op === "-" ? -value : value;
    }
    return parsePower();
  };
  const parsePower = (): number => {
    const base = parseAtom();
    if (isOp(peek(), "^")) {
      position++;
      return base ** nested(parseUnary);
    }
    return base;
  };
  const parseAtom = (): number => {
    const token = peek();
    if (token?.type === "number") {
      position++;
      return token.value;
    }
    if (isOp(token, "(")) {
      position++;
      const value = nested(parseSum);
      if (!isOp(peek(), ")")) throw new ArithmeticError(`Expected ")" but found ${describe(peek())}`);
      position++;
      return value;
    }
    throw new ArithmeticError(`Expected a number or "(" but found ${describe(token)}`);
  };
  const nested = (parse: () => number): number => {
    if (++depth > MAX_DEPTH) throw new ArithmeticError(`The expression nests deeper than ${MAX_DEPTH} levels`);
    try {
      return parse();
    } finally {
      depth--;
    }
  };

  const value = parseSum();
  if (position < tokens.length) throw new ArithmeticError(`Unexpected ${describe(peek())}`);
  if (!Number.isFinite(value)) throw new ArithmeticError("The result is not a finite number");
  return value;
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const number = /\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?/y;
  let index = 0;
  while (index < expression.length) {
    const char = expression[index] as string;
    if (char === " " || char === "\t" || char === "\n") {
      index++;
      continue;
    }
    if ("+-*/%^()".includes(char)) {
      tokens.push({ type: "op", value: char, at: index });
      index++;
      continue;
    }
    number.lastIndex = index;
    const match = number.exec(expression);
    if (match === null) throw new ArithmeticError(`Unexpected character "${char}" at position ${index + 1}`);
    tokens.push({ type: "number", value: Number(match[0]), at: index });
    index += match[0].length;
  }
  return tokens;
}
