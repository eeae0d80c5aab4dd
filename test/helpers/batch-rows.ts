// Inputs and outputs of svc batch's tests: the JSON lines a run printed, and a CSV of numbered questions.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** the JSON lines of a run's output, parsed */
export const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

/** DIR/NAME: a header `id,question`, then q1 … qN asking "What is i + i, exactly?" (a quoted comma in each) */
export function questionsCsv(dir: string, rows: number, name = 'questions.csv'): string {
  const lines = ['id,question'];
  for (let i = 1; i <= rows; i++) lines.push(`q${i},"What is ${i} + ${i}, exactly?"`);
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
