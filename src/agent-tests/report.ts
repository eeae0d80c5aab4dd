// Reports of `svc agents test`: a line per case for people, TAP 14 and JUnit XML for CI.
import type { CaseResult } from './run-case.js';

export const REPORT_FORMATS = ['text', 'tap', 'junit'] as const;

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/** One case as a line: `ok   name (1.2 s)` / `FAIL name (0.8 s): first failure (+N more)`. */
export function caseLine(r: CaseResult, mark: { ok: string; fail: string } = { ok: 'ok  ', fail: 'FAIL' }): string {
  const time = `(${(r.ms / 1000).toFixed(1)} s)`;
  if (r.passed) return `${mark.ok} ${r.name} ${time}`;
  const more = r.failures.length > 1 ? ` (+${r.failures.length - 1} more)` : '';
  return `${mark.fail} ${r.name} ${time}: ${r.failures[0]}${more}`;
}

/** TAP version 14: a test point per case, failures as a YAML diagnostic block. */
export function tapReport(results: CaseResult[]): string {
  const lines = ['TAP version 14', `1..${results.length}`];
  for (const [i, r] of results.entries()) {
    const name = r.name.replace(/#/g, '\\#').replace(/\n/g, ' ');
    lines.push(`${r.passed ? 'ok' : 'not ok'} ${i + 1} - ${name}`);
    if (!r.passed) {
      lines.push('  ---', `  file: ${JSON.stringify(r.file)}`, `  duration_ms: ${Math.round(r.ms)}`, '  failures:');
      for (const f of r.failures) lines.push(`    - ${JSON.stringify(f)}`);
      lines.push('  ...');
    }
  }
  return `${lines.join('\n')}\n`;
}

const xml = (s: string): string =>
  s
    // characters XML 1.0 cannot hold at all
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** JUnit XML (the form CI systems read): one testsuite per test file, one testcase per case. */
export function junitReport(results: CaseResult[], suiteName = 'svc agents test'): string {
  const byFile = new Map<string, CaseResult[]>();
  for (const r of results) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  const failed = results.filter((r) => !r.passed).length;
  const total = results.reduce((t, r) => t + r.ms, 0);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(suiteName)}" tests="${results.length}" failures="${failed}" errors="0" ` +
      `time="${seconds(total)}">`,
  ];
  for (const [file, list] of byFile) {
    const f = list.filter((r) => !r.passed).length;
    out.push(
      `  <testsuite name="${xml(file)}" tests="${list.length}" failures="${f}" errors="0" ` +
        `time="${seconds(list.reduce((t, r) => t + r.ms, 0))}">`,
    );
    for (const r of list) {
      const open = `    <testcase classname="${xml(file)}" name="${xml(r.name)}" time="${seconds(r.ms)}"`;
      if (r.passed) {
        out.push(`${open}/>`);
        continue;
      }
      out.push(
        `${open}>`,
        `      <failure message="${xml(r.failures[0] ?? 'failed')}" ` +
          `type="AssertionError">${xml(r.failures.join('\n'))}</failure>`,
      );
      out.push(`      <system-out>${xml(r.transcript.join('\n'))}</system-out>`, '    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/** A file name for a case's transcript: its name, lower-case, safe on every file system. */
export function transcriptName(r: CaseResult, index: number): string {
  return `${fileStem(r.name, index)}.txt`;
}

/** `NNN-name`: a name made lower-case and safe on every file system, after its 1-based index. */
export function fileStem(name: string, index: number): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${String(index + 1).padStart(3, '0')}-${slug || 'case'}`;
}
