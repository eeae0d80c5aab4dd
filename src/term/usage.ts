// The token line of -u/--usage, written so that it adds up: the terms shown always sum to the total shown.
// Reasoning tokens are either counted apart from the completion (chat: prompt + completion + reasoning = total) or
// inside it (responses: input + output = total, reasoning among the output); any remainder is shown as "other".

/**
 * `7 prompt + 26 completion + 15 reasoning = 48 tokens`, or `7 input + 41 output (15 of them reasoning) = 48 tokens`.
 */
export function tokenSum(
  input: [number, string],
  output: [number, string],
  reasoning: number | undefined,
  total: number,
): string {
  const terms = [`${input[0]} ${input[1]}`, `${output[0]} ${output[1]}`];
  let sum = input[0] + output[0];
  let inside = '';
  if (reasoning) {
    if (sum === total) inside = ` (${reasoning} of them reasoning)`;
    else {
      terms.push(`${reasoning} reasoning`);
      sum += reasoning;
    }
  }
  const rest = total - sum;
  const remainder = rest > 0 ? ` + ${rest} other` : rest < 0 ? ` − ${-rest} counted twice` : '';
  const line = `${terms.join(' + ')}${inside}${remainder}`;
  return `${line} = ${total} tokens`;
}
