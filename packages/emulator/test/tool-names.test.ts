// Issue 26 item 9: the emulator's realtime engine calls a tool when the user names it in ordinary words ("book a
// table" calls book_table), and not when the words are out of order or far apart.
import { describe, expect, it } from 'vitest';
import { namesTool } from '../src/realtime/realtime-session.js';

describe('namesTool', () => {
  it('the emulator understands ordinary phrasings of a tool’s name', () => {
    const s = (t: string) => ` ${t.toLowerCase().replace(/[^a-z0-9]+/g, ' ')} `;
    for (const said of ['book a table', 'Please book_table', 'booking the big table', 'can you book me a table'])
      expect(namesTool(s(said), 'book_table'), said).toBe(true);
    expect(namesTool(s('get me the weather in Paris'), 'getWeather')).toBe(true);
    for (const said of ['a table to book', 'book a very very big table', 'bookkeeping on the table', 'hello'])
      expect(namesTool(s(said), 'book_table'), said).toBe(false);
  });
});
