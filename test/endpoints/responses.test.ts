// A retrieved response may carry its usage in the chat shape (the document's Response.usage is ResponseUsage or
// ChatUsage); `svc responses get` and the tool loop's total read it through responseUsage, which took only the
// Responses shape before and printed `undefined input + undefined output`.
import { describe, expect, it } from 'vitest';
import { responseUsage } from '../../src/endpoints/responses.js';

describe('responseUsage', () => {
  it('keeps the Responses shape as it is', () => {
    const usage = {
      input_tokens: 12,
      output_tokens: 5,
      total_tokens: 17,
      output_tokens_details: { reasoning_tokens: 2 },
    };
    expect(responseUsage(usage)).toBe(usage);
  });

  it('reads the chat shape as the Responses one', () => {
    expect(
      responseUsage({
        prompt_tokens: 12,
        completion_tokens: 5,
        total_tokens: 17,
        prompt_tokens_details: { cached_tokens: 4 },
        completion_tokens_details: { reasoning_tokens: 2 },
        cost_in_usd_ticks: 1500,
      }),
    ).toEqual({
      input_tokens: 12,
      output_tokens: 5,
      total_tokens: 17,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens_details: { reasoning_tokens: 2 },
      cost_in_usd_ticks: 1500,
    });
  });

  it('no usage is undefined', () => {
    expect(responseUsage(null)).toBeUndefined();
    expect(responseUsage(undefined)).toBeUndefined();
  });
});
