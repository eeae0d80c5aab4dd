// The skill archive reader refuses zip bombs by their declared sizes before inflating (issue 26, item 3).
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readSkillMd, SkillArchiveError } from '../src/skill-archive.js';
import { lyingBomb, SKILL_MD, zipBombs } from './zip-bombs.js';

describe('readSkillMd', () => {
  it('reads the top-level SKILL.md (root or its one folder), undefined without one', () => {
    expect(readSkillMd(zipSync({ 'a/SKILL.md': Buffer.from(SKILL_MD), 'a/b/SKILL.md': Buffer.from('x') }))).toBe(
      SKILL_MD,
    );
    expect(readSkillMd(zipSync({ 'a/b/SKILL.md': Buffer.from(SKILL_MD) }))).toBeUndefined();
    expect(() => readSkillMd(Buffer.from('not a zip'))).toThrow(/not a valid zip archive/);
  });

  for (const bomb of zipBombs()) {
    it(`refuses ${bomb.kind}, naming the limit`, () => {
      let error: unknown;
      try {
        readSkillMd(bomb.zip);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(SkillArchiveError);
      expect((error as SkillArchiveError).kind).toBe('limit');
      expect((error as Error).message).toMatch(bomb.limit);
    });
  }

  it('stops inflating a SKILL.md that lies about its size once it passes the declared size', () => {
    expect(() => readSkillMd(lyingBomb())).toThrow(/SKILL\.md inflates past the 80 bytes its archive declares/);
  });
});
