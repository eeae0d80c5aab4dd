// The REPL's kept history: newest first in, oldest dropped at the entry and byte caps, multi-line entries whole, a
// file grown past the cap read only from its tail, private to the user.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HISTORY_BYTES, HISTORY_ENTRIES, historyFile, loadHistory, saveHistory } from '../../src/store/repl-history.js';
import { tempDir } from '../helpers/files.js';

describe('REPL history store', () => {
  it('keeps a file per profile in the data folder, 0600, multi-line entries whole', () => {
    const data = tempDir();
    const file = historyFile({ SVC_DATA_DIR: data }, 'work/../x');
    expect(file).toBe(join(data, 'history', 'work_.._x.jsonl'));
    saveHistory(file, ['second\nline', 'first']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadHistory(file)).toEqual(['second\nline', 'first']);
    expect(loadHistory(join(data, 'none.jsonl'))).toEqual([]);
  });

  it('drops the oldest entries over the entry cap and the byte cap', () => {
    const file = join(tempDir(), 'h.jsonl');
    const many = Array.from({ length: HISTORY_ENTRIES + 50 }, (_, i) => `entry ${HISTORY_ENTRIES + 49 - i}`);
    saveHistory(file, many);
    const kept = loadHistory(file);
    expect(kept).toHaveLength(HISTORY_ENTRIES);
    expect(kept[0]).toBe(`entry ${HISTORY_ENTRIES + 49}`);
    const big = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(10_000, 'x'));
    saveHistory(file, big);
    expect(readFileSync(file).length).toBeLessThanOrEqual(HISTORY_BYTES);
    expect(loadHistory(file)[0]).toBe(big[0]);
  });

  it('reads only the tail of a file grown past the cap', () => {
    const file = join(tempDir(), 'h.jsonl');
    const line = `${JSON.stringify('y'.repeat(1000))}\n`;
    writeFileSync(file, `${line.repeat(2000)}${JSON.stringify('newest')}\n`);
    const kept = loadHistory(file);
    expect(kept[0]).toBe('newest');
    expect(kept.length).toBeLessThan(HISTORY_BYTES / 1000);
  });
});
