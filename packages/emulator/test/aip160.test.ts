import { describe, expect, it } from 'vitest';
import { compileFilter, FilterError, parseFilter, parseTime, type FieldSpec } from '../src/core/aip160.js';

interface Rec {
  name: string;
  size: number;
  type: string;
  id: string;
  at: number;
  exp: number | null;
}
const FIELDS: Record<string, FieldSpec<Rec>> = {
  name: { kind: 'fuzzy', get: (r) => r.name },
  size_bytes: { kind: 'int', get: (r) => r.size },
  content_type: { kind: 'partial', get: (r) => r.type },
  file_id: { kind: 'exact', get: (r) => r.id },
  created_at: { kind: 'time', get: (r) => r.at },
  expires_at: { kind: 'time', get: (r) => r.exp },
};
const T = (iso: string) => Date.parse(iso) / 1000;
const RECS: Rec[] = [
  {
    name: 'Quarterly Report.pdf',
    size: 2_000_000,
    type: 'application/pdf',
    id: 'file_a',
    at: T('2024-03-01T00:00:00Z'),
    exp: null,
  },
  {
    name: 'draft notes.txt',
    size: 500,
    type: 'text/plain',
    id: 'file_b',
    at: T('2023-12-31T23:59:59Z'),
    exp: T('2030-01-01T00:00:00Z'),
  },
  { name: 'tmp.csv', size: 1_000_001, type: 'text/csv', id: 'file_c', at: T('2024-06-01T12:00:00Z'), exp: null },
  {
    name: 'report-final.docx',
    size: 40_000,
    type: 'application/vnd.openxmlformats',
    id: 'file_d',
    at: T('2024-01-15T00:00:00Z'),
    exp: T('2024-02-01T00:00:00Z'),
  },
];
const ids = (filter: string) => RECS.filter(compileFilter<Rec>(filter, FIELDS)).map((r) => r.id);

describe('AIP-160 filters', () => {
  it('the examples of the wire notes', () => {
    expect(ids('name:"quarterly report"')).toEqual(['file_a']);
    expect(ids('content_type = "pdf"')).toEqual(['file_a']);
    expect(ids('size_bytes > 1000000 AND created_at > "2024-01-01T00:00:00Z"')).toEqual(['file_a', 'file_c']);
    expect(ids('file_id = "file_c"')).toEqual(['file_c']);
    expect(ids('NOT name:"tmp"')).toEqual(['file_a', 'file_b', 'file_d']);
  });

  it('every comparison operator', () => {
    expect(ids('size_bytes = 500')).toEqual(['file_b']);
    expect(ids('size_bytes != 500')).toEqual(['file_a', 'file_c', 'file_d']);
    expect(ids('size_bytes >= 1000001')).toEqual(['file_a', 'file_c']);
    expect(ids('size_bytes < 40000')).toEqual(['file_b']);
    expect(ids('size_bytes <= 40000')).toEqual(['file_b', 'file_d']);
    expect(ids('created_at <= "2024-01-15T00:00:00Z"')).toEqual(['file_b', 'file_d']);
    expect(ids('expires_at < "2025-01-01T00:00:00Z"')).toEqual(['file_d']);
  });

  it('OR binds tighter than AND; parentheses and implicit AND; a leading minus negates', () => {
    // a AND b OR c == a AND (b OR c)
    expect(ids('content_type:"text" AND size_bytes < 1000 OR name:"tmp"')).toEqual(['file_b', 'file_c']);
    expect(ids('(content_type:"text" AND size_bytes < 1000) OR name:"report"')).toEqual(['file_a', 'file_b', 'file_d']);
    expect(ids('name:"report" size_bytes < 100000')).toEqual(['file_d']);
    expect(ids('-name:"report"')).toEqual(['file_b', 'file_c']);
    expect(ids('NOT (name:"report" OR name:"tmp")')).toEqual(['file_b']);
    expect(ids('"notes"')).toEqual(['file_b']); // a bare value: fuzzy on the name
  });

  it('= on a name is exact with * wildcards; : is fuzzy and case-insensitive', () => {
    expect(ids('name = "tmp.csv"')).toEqual(['file_c']);
    expect(ids('name = "report*"')).toEqual(['file_d']);
    expect(ids('name:"REPORT"')).toEqual(['file_a', 'file_d']);
  });

  it('errors name the position and the problem', () => {
    expect(() => parseFilter('name:"x" AND')).toThrow(FilterError);
    expect(() => ids('(name:"x"')).toThrow(/position \d+: expected \)/);
    expect(() => ids('name:"unterminated')).toThrow(/position 6: unterminated string/);
    expect(() => ids('colour = "red"')).toThrow(/unknown field colour; filterable fields: name, size_bytes/);
    expect(() => ids('size_bytes > "big"')).toThrow(/whole number/);
    expect(() => ids('created_at > "yesterday"')).toThrow(/RFC 3339/);
    expect(() => ids('= 3')).toThrow(/unexpected =/);
  });

  it('timestamps: RFC 3339 with offsets, and unix seconds', () => {
    expect(parseTime('2024-01-01T01:00:00+01:00')).toBe(T('2024-01-01T00:00:00Z'));
    expect(parseTime('1704067200')).toBe(1704067200);
    expect(parseTime('01/02/2024')).toBeUndefined();
  });
});
