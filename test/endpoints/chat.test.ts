// The client's tool-call accumulator takes both shapes a stream may use: a call whole in one chunk (the service's
// recorded streams) and a call split over chunks that carry only `index` and an `arguments` fragment.
import { describe, expect, it } from 'vitest';
import { ToolCallAccumulator } from '../../src/endpoints/chat.js';

const whole = {
  id: 'call_1',
  type: 'function' as const,
  function: { name: 'get_weather', arguments: '{"city":"Lima","days":3}' },
};

describe('ToolCallAccumulator', () => {
  it('takes each call whole in one chunk', () => {
    const acc = new ToolCallAccumulator();
    acc.add([{ index: 0, ...whole }]);
    acc.add([{ index: 1, id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } }]);
    expect(acc.list()).toEqual([
      whole,
      { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
  });

  it('joins a call split over chunks (index and arguments fragments), in index order', () => {
    const acc = new ToolCallAccumulator();
    acc.add([{ index: 1, id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '' } }]);
    acc.add([{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }]);
    acc.add([{ index: 0, function: { arguments: '"Lima",' } }]);
    acc.add([{ index: 1, function: { arguments: '{}' } }]);
    acc.add([{ index: 0, function: { arguments: '"days":3}' } }]);
    expect(acc.list()).toEqual([
      whole,
      { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ]);
  });
});
