// The tool of the booking agent that the agent-test suites and the docs' examples test.
export const BOOK_TABLE = {
  type: 'function',
  function: {
    name: 'book_table',
    description: 'book a table',
    parameters: {
      type: 'object',
      properties: { party_size: { type: 'integer' }, city: { type: 'string' } },
      required: ['party_size'],
    },
  },
};

/** The agent that books tables (its definition as `agents pull` writes one, for --agent-file). */
export const BOOKING_AGENT = {
  name: 'booking',
  instructions: 'You book tables.',
  voice: { voice_id: 'ara' },
  tools: [BOOK_TABLE],
};
